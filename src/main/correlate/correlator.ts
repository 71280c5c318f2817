/**
 * Attributes every traced access to a data structure while the trace streams in (the trace
 * worker feeds it in execution order). Variables get dense ids; 0 is `unknown`. Heap blocks
 * are grouped by allocation context (the call stack at malloc), stack locals by function and
 * name. Naming contexts after the allocating source line happens after the trace (it needs
 * line information); here they carry their context addresses.
 */
import { AddressMap, UNKNOWN_VARIABLE, frameLayout, type FrameLayout } from './address-map'
import { isAllocLine, parseAllocLine, parseFrameLine, type AllocEvent } from './alloc-events'
import type { FrameLocalInfo, ProgramVariables, TypeShape } from '../symbols/gdb-variables'
import { KIND_READ, KIND_WRITE } from '../../shared/access-kinds'
import { grownFor } from '../typed-arrays'
import { NativeAttribution, type Runs } from './native-attribute'
import { PointCounts } from './point-counts'

export type VariableKind = 'global' | 'stack' | 'heap' | 'unknown'

export interface VariableRecord {
  id: number
  name: string
  kind: VariableKind
  /** Runtime start (globals; the last block for heap contexts); null for stack locals. */
  start: number | null
  size: number | null
  type: string | null
  elementSize: number | null
  dims: number[] | null
  /** Stack: the function; heap: the allocation context (runtime return addresses). */
  function: string | null
  context: number[] | null
  reads: number
  writes: number
}

export interface ProgramDataLayout {
  /** Globals of the program at link-time addresses. */
  globals: Array<{ name: string; start: number; size: number }>
  /** The program's functions: name, link-time entry and size (their span is its own code). */
  functions: Array<{ name: string; start: number; size?: number }>
  variables: ProgramVariables
  /** Addresses are relative to the load base (PIE). */
  relocatable: boolean
  /** The program's own shared libraries (not the system's): their globals, relative to their load base. */
  libraries?: Array<{ path: string; globals: Array<{ name: string; start: number; size: number }> }>
}

export class Correlator {
  private readonly map = new AddressMap()
  /** The native loop that counts the accesses a point's span and run answer (its arrays bound once). */
  private readonly attribution = new NativeAttribution()
  private readonly variables: VariableRecord[] = []
  /**
   * Allocation contexts by a hash of their frames (contextHash), each with its variable id: a
   * number key, not the frames joined into a string at every allocation.
   */
  private readonly contexts = new Map<number, Array<{ context: number[]; id: number }>>()
  private heapContexts = 0
  /** allocationContext's frames for the allocation being placed (copied only for a new context). */
  private contextScratch = new Float64Array(16)
  /** Runtime entry pc -> the layout of the frame's locals with their variable ids (laid out once, for every call). */
  private readonly entries = new Map<number, FrameLayout>()
  /** Per point, in the order of their first accesses; filled from `counts` by finish(). */
  private readonly histograms = new Map<number, Map<number, number>>()
  /**
   * Per point, its current run of accesses of one kind to one variable, not yet added to its
   * histogram and the variable's counts (a point mostly touches one variable access after
   * access): variable -1 when none. Runs are closed in order, so each histogram gets its
   * variables in the order they were first touched, as if counted one by one.
   */
  private readonly runs: Runs = { variable: new Int32Array(0), kind: new Uint8Array(0), count: new Float64Array(0) }
  /** The closed runs' accesses per point, variable and kind (the native loop closes runs into it too). */
  private readonly counts = new PointCounts()
  private lastStore = -1
  private loaded = false
  private readonly placedLibraries = new Set<string>()
  /** An allocation whose backtrace lines are still arriving. */
  private pending: { event: Extract<AllocEvent, { kind: 'alloc' }>; frames: number[] } | null = null
  allocEvents = 0

  /** The program's own code, once placed (allocationContext reads callers up to it). */
  private programText: { low: number; high: number } | null = null
  /** The functions with kept locals, ascending (frameFilter's entries; replaced, never changed). */
  private frameEntries = new Float64Array(0)

  constructor(private readonly layout: ProgramDataLayout | null) {
    this.variables.push(this.record('unknown', 'unknown', null, null))
  }

  /**
   * For a record reader that passes over what changes no frame (the tool's native scan): the
   * entries of functions with kept locals (enterFunction of any other is a no-op), and per
   * thread the CFA of the innermost frame (leaveFunction below it pops nothing). Both current
   * after every call; `entries` is a new array when it changes.
   */
  frameFilter(): { entries: Float64Array; top: Float64Array } {
    return { entries: this.frameEntries, top: this.map.topCfa }
  }

  /** Whether instruction addresses are needed (to see function entries). */
  get wantsInstructions(): boolean {
    return Boolean(this.layout && this.layout.functions.some((f) => this.layout!.variables.frames[f.name]?.length))
  }

  private record(name: string, kind: VariableKind, shape: TypeShape | null, fn: string | null): VariableRecord {
    return {
      id: this.variables.length,
      name,
      kind,
      start: null,
      size: shape?.size ?? null,
      type: shape?.type ?? null,
      elementSize: shape?.elementSize ?? null,
      dims: shape?.dims ?? null,
      function: fn,
      context: null,
      reads: 0,
      writes: 0
    }
  }

  /** The program is mapped at `base`: place its globals and frame entries. */
  programLoaded(base: number): void {
    if (this.loaded || !this.layout) return
    this.loaded = true
    const offset = this.layout.relocatable ? base : 0
    this.placeGlobals(this.layout.globals.map((g) => ({ name: g.name, start: g.start + offset, size: g.size, info: this.layout!.variables.globals[g.name] })))
    for (const f of this.layout.functions) {
      const locals: FrameLocalInfo[] = this.layout.variables.frames[f.name] ?? []
      if (locals.length === 0) continue
      const frame = locals.map((l) => {
        const v = this.record(l.name, 'stack', l, f.name)
        this.variables.push(v)
        return { offset: l.offset, size: l.size, variable: v.id }
      })
      this.entries.set(f.start + offset, frameLayout(frame))
    }
    this.frameEntries = Float64Array.from([...this.entries.keys()].sort((a, b) => a - b))
    let low = Infinity
    let high = -Infinity
    for (const f of this.layout.functions) {
      low = Math.min(low, f.start + offset)
      high = Math.max(high, f.start + offset + (f.size ?? 0))
    }
    if (high > low) this.programText = { low, high }
  }

  /**
   * A shared object is mapped at `base`: place its globals, if it is one of the program's own
   * libraries. Named as in the library's symbol table; `LIB:name` where the program has a
   * global of that name too.
   */
  libraryLoaded(path: string, base: number): void {
    const lib = this.layout?.libraries?.find((l) => l.path === path)
    if (!lib || this.placedLibraries.has(path)) return
    this.placedLibraries.add(path)
    const own = new Set(this.layout!.globals.map((g) => g.name))
    const file = path.slice(path.lastIndexOf('/') + 1)
    this.placeGlobals(lib.globals.filter((g) => g.size > 0).map((g) => ({ name: own.has(g.name) ? `${file}:${g.name}` : g.name, start: g.start + base, size: g.size, info: undefined })))
  }

  /** Globals at their runtime addresses: recorded as variables and placed in the address map. */
  private placeGlobals(globals: Array<{ name: string; start: number; size: number; info: TypeShape | undefined }>): void {
    const ranges = globals.map((g) => {
      const v = this.record(g.name, 'global', g.info ?? { type: '', size: g.size, elementSize: g.size, dims: null }, null)
      v.start = g.start
      v.size = g.size
      this.variables.push(v)
      return { start: v.start, end: v.start + g.size, variable: v.id }
    })
    this.map.addGlobals(ranges)
  }

  /** Every executed instruction (only called when wantsInstructions). */
  instruction(pc: number): void {
    const locals = this.entries.get(pc)
    // At a function's first instruction the last store was the call pushing the return
    // address: the CFA is just above it.
    if (locals && this.lastStore >= 0) this.map.enterFrame(this.lastStore + 8, locals)
  }

  /** Every data access of the run, traced or not: keeps frames and the return slot current. */
  observe(kind: number, address: number, size: number): void {
    if (this.pending) this.applyPending()
    if (kind === KIND_WRITE) this.lastStore = address
    else if (kind === KIND_READ) this.map.maybeReturn(address, size)
  }

  /** A traced access by access point `point` (in `thread`, when the tracer tells). Returns the variable id. */
  attribute(point: number, kind: number, address: number, thread = 0): number {
    this.map.setThread(thread)
    const v = this.map.resolveAt(point, address)
    this.count(point, kind, v)
    return v
  }

  /**
   * attribute() for accesses from..to-1 of a tracer's batch, in order (the same counts); a
   * point's kind is `kindOf[point]`. Each access's variable goes to accessVariable[i]: the
   * column the simulator counts misses per data structure by.
   */
  attributeBatch(points: Uint32Array, addresses: Float64Array, threads: Uint16Array, from: number, to: number, kindOf: Uint8Array, accessVariable: Int32Array): void {
    const map = this.map
    // The native loop counts the accesses whose point's span and run go on; each one it stops
    // at (a search of the map, a run closed, a new point) is handled here, then it goes on.
    for (let i = from; i < to; i++) {
      i = this.attribution.countAnswered(points, addresses, threads, accessVariable, i, to, map.spans(), kindOf, this.runs, this.counts)
      if (i === to) break
      map.setThread(threads[i]!)
      const point = points[i]!
      const v = map.resolveAt(point, addresses[i]!)
      this.count(point, kindOf[point]!, v)
      accessVariable[i] = v
    }
    // Only a search needs the thread (its frames); afterwards it is the last access's, as when
    // every access set it.
    if (to > from) map.setThread(threads[to - 1]!)
  }

  private count(point: number, kind: number, v: number): void {
    const runs = this.runs
    if (point >= runs.variable.length) {
      runs.variable = grownFor(runs.variable, point, -1, 1024)
      runs.kind = grownFor(runs.kind, point, 0, 1024)
      runs.count = grownFor(runs.count, point, 0, 1024)
    }
    if (runs.variable[point] === v && runs.kind[point] === kind) {
      runs.count[point]++
      return
    }
    this.closeRun(point)
    // A point's first access gives it its place among the histograms.
    if (!this.histograms.has(point)) this.histograms.set(point, new Map())
    runs.variable[point] = v
    runs.kind[point] = kind
    runs.count[point] = 1
  }

  private closeRun(point: number): void {
    const runs = this.runs
    const v = runs.variable[point]!
    if (v < 0) return
    this.counts.add(point, v, runs.kind[point]!, runs.count[point]!)
    runs.variable[point] = -1
  }

  /**
   * Stride's Valgrind tool reports function entries and returns itself: a function of the
   * program starts with `sp` pointing at its return address (the CFA is just above it).
   */
  enterFunction(entry: number, sp: number, thread = 0): void {
    const locals = this.entries.get(entry)
    if (!locals) return
    this.map.setThread(thread)
    this.map.enterFrame(sp + 8, locals)
  }

  /** A function returned; `sp` is the stack pointer after the return (its CFA). */
  leaveFunction(sp: number, thread = 0): void {
    this.map.setThread(thread)
    this.map.leaveTo(sp)
  }

  /** An allocation with Valgrind's stack trace (frames[0] the wrapper, then the callers). */
  allocated(e: Extract<AllocEvent, { kind: 'alloc' }>, frames: number[]): void {
    this.allocEvents++
    this.place(e, frames)
  }

  freed(ptr: number): void {
    this.allocEvents++
    this.map.free(ptr)
  }

  /** A Valgrind log line; returns true when it belonged to an allocation event. */
  log(line: string): boolean {
    if (this.pending) {
      const frame = parseFrameLine(line)
      if (frame !== null) {
        this.pending.frames.push(frame)
        return true
      }
      this.applyPending()
    }
    if (!isAllocLine(line)) return false
    const e = parseAllocLine(line)
    if (!e) return true
    this.allocEvents++
    if (e.kind === 'free') this.map.free(e.ptr)
    else this.pending = { event: e, frames: [] }
    return true
  }

  /**
   * Places an allocation once its backtrace is complete. The context is the call stack from
   * the allocating function up (the first frame is the interposer's wrapper), so blocks from
   * one line reached through different callers are told apart.
   */
  private applyPending(): void {
    const { event: e, frames } = this.pending!
    this.pending = null
    this.place(e, frames)
  }

  private place(e: Extract<AllocEvent, { kind: 'alloc' }>, frames: number[]): void {
    if (e.old) this.map.free(e.old)
    const n = this.allocationContext(e.site, frames)
    const context = this.contextScratch
    const hash = contextHash(context, n)
    let bucket = this.contexts.get(hash)
    let id = -1
    if (bucket) {
      for (const c of bucket)
        if (sameFrames(c.context, context, n)) {
          id = c.id
          break
        }
    } else this.contexts.set(hash, (bucket = []))
    if (id < 0) {
      const v = this.record(`heap_${this.heapContexts++}`, 'heap', null, null)
      v.context = Array.from(context.subarray(0, n))
      v.size = 0
      this.variables.push(v)
      bucket.push({ context: v.context, id: (id = v.id) })
    }
    const v = this.variables[id]!
    v.start = e.ptr
    v.size = Math.max(v.size ?? 0, e.size)
    this.map.alloc(e.ptr, e.size, id)
  }

  /**
   * What tells an allocation's data structure apart: its site and the three callers above it,
   * as Cachegrind-style tools do; where the site is in a library (operator new, std::string's
   * growth in libstdc++), the frames go on to the program's first one and three above that.
   * Four frames of libstdc++ alone are the same for every std::string of a C++ program: its
   * JSON reader's input and its writer's output were one structure, named after either.
   */
  private allocationContext(site: number, frames: number[]): number {
    // Into contextScratch, returning how many (no array per allocation; setting a length is a runtime call).
    if (this.contextScratch.length < frames.length + 1) this.contextScratch = new Float64Array(frames.length + 1)
    const context = this.contextScratch
    let n = 0
    context[n++] = site
    let k = 2
    if (!this.inProgram(site)) {
      while (k < frames.length && !this.inProgram(frames[k]!)) context[n++] = frames[k++]!
      if (k < frames.length) context[n++] = frames[k++]!
    }
    for (let m = 0; m < 3 && k < frames.length; m++) context[n++] = frames[k++]!
    return n
  }

  /** Whether `pc` is in the program's own functions (true until the program is placed: the old depth). */
  private inProgram(pc: number): boolean {
    return !this.programText || (pc >= this.programText.low && pc < this.programText.high)
  }

  /** All variables (id order; 0 is unknown) and, per point, accesses per variable. */
  finish(): { variables: VariableRecord[]; histograms: Map<number, Map<number, number>> } {
    if (this.pending) this.applyPending()
    for (let point = 0; point < this.runs.variable.length; point++) this.closeRun(point)
    // In the order the cells were made: each histogram gets its variables in the order their
    // runs were first closed, as when every close went straight into it.
    this.counts.drain((point, v, kind, n) => {
      const h = this.histograms.get(point)!
      h.set(v, (h.get(v) ?? 0) + n)
      const rec = this.variables[v]!
      if (kind === KIND_READ) rec.reads += n
      else if (kind === KIND_WRITE) rec.writes += n
      else {
        rec.reads += n
        rec.writes += n
      }
    })
    return { variables: this.variables, histograms: this.histograms }
  }
}

/** A hash of an allocation context's `n` frames (integers below 2^53: both 32-bit halves mixed in). */
function contextHash(frames: Float64Array, n: number): number {
  let h = n
  for (let i = 0; i < n; i++) {
    const pc = frames[i]!
    h = Math.imul(h ^ (pc >>> 0), 0x9e3779b1)
    h = Math.imul(h ^ ((pc / 4294967296) >>> 0), 0x85ebca6b)
    h ^= h >>> 15
  }
  return h
}

/** Whether a context is the same frames as the first `n` of `b` (as their comma-joined strings, the old key, were equal: integers). */
function sameFrames(a: number[], b: Float64Array, n: number): boolean {
  if (a.length !== n) return false
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false
  return true
}

/** A point's dominant variable: the one most of its accesses touched (unknown when none). */
export function dominantVariable(histogram: Map<number, number> | undefined): number {
  let best = UNKNOWN_VARIABLE
  let count = -1
  // forEach, not for-of: no entry array per pair (the naming asks twice per point, for thousands of points).
  histogram?.forEach((n, v) => {
    if (n > count || (n === count && best === UNKNOWN_VARIABLE)) {
      best = v
      count = n
    }
  })
  return best
}

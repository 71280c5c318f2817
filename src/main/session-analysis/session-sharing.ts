/**
 * Threads over a stored session (issue 50): the schedule-independent line-sharing detector and
 * the multi-core hierarchy run over the trace with each access's thread (the chunks' thread
 * runs), their lines and references named after the session's data structures and points.
 */
import { StrideError } from '../../shared/errors'
import type { AccessPoint, LayoutFilter, SharedLineInfo, SharedLines, SharedStructure, SharingFigures, ThreadBreakdown } from '../../shared/domain'
import { LineSharingDetector, type SharedLine } from '../analysis/sharing/line-sharing'
import { buildLayoutMap, type LayoutMap, type PlacedVariable } from '../simulate/layout-filter'
import { MultiCoreHierarchy, placeThreads, type MultiCoreConfig, type MultiCoreResult, type ThreadedAccesses } from '../simulate/multicore'
import type { Db } from '../store/open-db'
import { iterateChunks, readPointKinds, readPoints, readThreadRuns } from '../store/session-reader'
import { ThreadCursor, threadsOf } from '../store/thread-runs'
import { readPlacedVariables } from './placed-variables'
import { ObjectTable, UNKNOWN_OBJECT } from '../analysis/objects/object-table'

/** Each access's thread, or the one line saying why the session has none. */
export function sessionThreadRuns(db: Db): Uint32Array {
  const runs = readThreadRuns(db)
  if (!runs)
    throw new StrideError(
      'this session does not say which thread made each access (recorded by Lackey, or by a Stride before threads were kept); re-trace the program with this Stride to simulate cores or find shared lines.'
    )
  return runs
}

/** The trace again, each batch with its accesses' threads (and, through `map`, its addresses moved, the trace's kept as `originals`). */
function* threadedChunks(db: Db, pointCount: number, runs: Uint32Array, map: LayoutMap | null = null): Generator<ThreadedAccesses & { originals?: Float64Array }> {
  const cursor = new ThreadCursor(runs)
  let threads = new Uint32Array(0)
  let mapped = new Float64Array(0)
  for (const chunk of iterateChunks(db, pointCount)) {
    if (threads.length < chunk.count) {
      threads = new Uint32Array(chunk.count)
      mapped = new Float64Array(map ? chunk.count : 0)
    }
    cursor.fill(threads, chunk.count)
    if (!map) {
      yield { ...chunk, threads: threads.subarray(0, chunk.count) }
      continue
    }
    map.apply(chunk.addresses, mapped, chunk.count)
    yield { ...chunk, addresses: mapped.subarray(0, chunk.count), originals: chunk.addresses, threads: threads.subarray(0, chunk.count) }
  }
}

/** One thread's accesses, in its own order, read from its own pass over the trace. */
class ThreadStream {
  private readonly chunks: Generator<ThreadedAccesses>
  private chunk: ThreadedAccesses | null = null
  private at = 0
  done = false

  constructor(
    db: Db,
    pointCount: number,
    runs: Uint32Array,
    readonly thread: number
  ) {
    this.chunks = threadedChunks(db, pointCount, runs)
  }

  /** Appends up to `n` of its next accesses to `out` from `count`; returns the new count. */
  take(n: number, out: ThreadedAccesses, count: number): number {
    while (n > 0 && !this.done) {
      if (!this.chunk || this.at >= this.chunk.count) {
        const next = this.chunks.next()
        if (next.done) {
          this.done = true
          break
        }
        this.chunk = next.value
        this.at = 0
      }
      const c = this.chunk
      while (n > 0 && this.at < c.count) {
        if (c.threads[this.at] === this.thread) {
          out.points[count] = c.points[this.at]!
          out.addresses[count] = c.addresses[this.at]!
          out.sizes[count] = c.sizes[this.at]!
          out.threads[count] = this.thread
          count++
          n--
        }
        this.at++
      }
    }
    return count
  }
}

const INTERLEAVED_BATCH = 1 << 16

/**
 * The threads' accesses round-robin, `quantum` at a time: the schedule of threads truly running
 * side by side, each in its own order. One pass over the trace per thread (a thread's stream
 * reads the trace and keeps its own accesses), so it costs the threads' number of decodes.
 */
function* interleaved(db: Db, pointCount: number, runs: Uint32Array, threads: number[], quantum: number): Generator<ThreadedAccesses> {
  const streams = threads.map((t) => new ThreadStream(db, pointCount, runs, t))
  const out: ThreadedAccesses = { count: 0, points: new Uint32Array(INTERLEAVED_BATCH + quantum), addresses: new Float64Array(INTERLEAVED_BATCH + quantum), sizes: new Uint16Array(INTERLEAVED_BATCH + quantum), threads: new Uint32Array(INTERLEAVED_BATCH + quantum) }
  let live = streams
  while (live.length > 0) {
    for (const s of live) {
      out.count = s.take(quantum, out, out.count)
      if (out.count >= INTERLEAVED_BATCH) {
        yield out
        out.count = 0
      }
    }
    live = live.filter((s) => !s.done)
  }
  if (out.count > 0) yield out
}

/** Each reference's accesses per thread: one pass over the trace (a count per point and thread). */
export function threadBreakdown(db: Db): ThreadBreakdown {
  const runs = sessionThreadRuns(db)
  const kinds = readPointKinds(db)
  const threads = threadsOf(runs)
  const counts = new Map(threads.map((t) => [t, new Float64Array(kinds.length)]))
  for (const b of threadedChunks(db, kinds.length, runs)) {
    let thread = -1
    let mine = counts.get(b.threads[0] ?? 0)!
    for (let i = 0; i < b.count; i++) {
      if (b.threads[i] !== thread) {
        thread = b.threads[i]!
        mine = counts.get(thread)!
      }
      mine[b.points[i]!]!++
    }
  }
  const points = readPoints(db, { streams: false })
  const references: ThreadBreakdown['references'] = []
  for (const p of points) {
    const by = threads.flatMap((t) => (counts.get(t)![p.index]! > 0 ? [{ thread: t, accesses: counts.get(t)![p.index]! }] : []))
    if (by.length > 0) references.push({ reference: p.id, threads: by })
  }
  return { threads, references }
}

/** Where an address falls: the data structure holding it (objects/ObjectTable's search), as `name[index]+offset` when its elements are known. */
export class AddressNamer {
  private readonly table: ObjectTable
  private readonly byName: Map<string, PlacedVariable>

  constructor(variables: PlacedVariable[]) {
    this.table = new ObjectTable(variables.map((v) => ({ name: v.name, kind: 'unknown', start: v.start, end: v.start + v.size })))
    this.byName = new Map(variables.map((v) => [v.name, v]))
  }

  variableAt(address: number): PlacedVariable | null {
    const k = this.table.resolve(address)
    return k === UNKNOWN_OBJECT ? null : (this.byName.get(this.table.objects[k]!.name) ?? null)
  }

  /** The data structures overlapping [address, address + size). */
  variablesIn(address: number, size: number): string[] {
    // The object holding `address`, else the first one after it (segment 2k: the gap before object k).
    const k = this.table.resolve(address)
    const out: string[] = []
    for (let i = k !== UNKNOWN_OBJECT ? k : this.table.segment(address) / 2; i < this.table.count && this.table.objects[i]!.start < address + size; i++) out.push(this.table.objects[i]!.name)
    return out
  }

  field(address: number): string | null {
    const v = this.variableAt(address)
    if (!v) return null
    const offset = address - v.start
    if (!v.elementSize) return `${v.name}+${offset}`
    const index = Math.floor(offset / v.elementSize)
    const within = offset - index * v.elementSize
    return `${v.name}[${index}]${within ? `+${within}` : ''}`
  }
}

export type NamedSharedLine = SharedLineInfo
export interface SessionSharing {
  lineSize: number
  threads: number[]
  lines: SharedLineInfo[]
}

/** What the two figures are, said wherever they are shown. */
export const SHARING_NOTE =
  'recorded: coherence misses in the order the trace recorded (Valgrind runs one thread at a time in long slices, so this understates sharing); fineEstimate: the same threads finely interleaved on their own cores (at most one miss per write by the others and per own access: an upper bound)'

/** getSharedLines: the session's shared lines and data structures at one line size. */
export async function sharedLines(db: Db, lineSize: number): Promise<SharedLines> {
  const s = await sessionSharing(db, lineSize)
  return { ...s, variables: sharingByVariable(s), note: SHARING_NOTE }
}

/**
 * The lines several threads share (some writing), named; two passes over the trace. With
 * `layout` (what-if padding) the lines are those of the padded layout, named by the trace's
 * addresses.
 */
export async function sessionSharing(db: Db, lineSize: number, layout: LayoutFilter[] = [], alongside: ((b: ThreadedAccesses) => void) | null = null): Promise<SessionSharing> {
  const runs = sessionThreadRuns(db)
  const kinds = readPointKinds(db)
  const variables = await readPlacedVariables(db)
  const map = layout.length > 0 ? buildLayoutMap(variables, layout) : null
  const detector = new LineSharingDetector(lineSize, kinds)
  // `alongside` (the multi-core run in the recorded order) takes the first pass's batches with the trace's addresses.
  for (const b of threadedChunks(db, kinds.length, runs, map)) {
    detector.survey(b)
    alongside?.(b.originals ? { ...b, addresses: b.originals } : b)
  }
  for (const b of threadedChunks(db, kinds.length, runs, map)) detector.account(b)
  const lines = detector.result()
  const points = readPoints(db, { streams: false })
  const namer = new AddressNamer(variables)
  return { lineSize, threads: threadsOf(runs), lines: lines.map((l) => nameLine(l, namer, points)) }
}

function nameLine(l: SharedLine, namer: AddressNamer, points: AccessPoint[]): NamedSharedLine {
  const held = new Set<string>()
  for (const t of l.threads) for (const f of t.footprints) for (const v of namer.variablesIn(f.address, f.size)) held.add(v)
  return {
    address: '0x' + l.address.toString(16),
    variables: [...held],
    threads: l.threads.map((t) => ({
      thread: t.thread,
      reads: t.reads,
      writes: t.writes,
      footprints: t.footprints.map((f) => ({
        field: namer.field(f.address),
        offset: f.offset,
        size: f.size,
        accesses: f.accesses,
        reads: f.reads,
        writes: f.writes,
        reference: points[f.point]?.id ?? `point_${f.point}`,
        sourceExpr: points[f.point]?.sourceExpr ?? null,
        trueSharing: f.trueSharing
      }))
    })),
    interleavings: l.interleavings,
    recorded: l.recorded,
    fineEstimate: l.fineEstimate,
    verdict: l.verdict
  }
}

/** Per data structure: the shared lines holding it, summed. The line's first named data structure owns it. */
export function sharingByVariable(s: SessionSharing): SharedStructure[] {
  const out = new Map<string, { variable: string; lines: number; recorded: SharingFigures; fineEstimate: SharingFigures; references: Set<string>; threads: Set<number>; fields: Map<number, Set<string>>; interleavings: number }>()
  for (const l of s.lines) {
    const name = l.variables[0] ?? 'unknown'
    let v = out.get(name)
    if (!v) out.set(name, (v = { variable: name, lines: 0, recorded: { trueSharing: 0, falseSharing: 0 }, fineEstimate: { trueSharing: 0, falseSharing: 0 }, references: new Set(), threads: new Set(), fields: new Map(), interleavings: 0 }))
    v.lines++
    v.interleavings += l.interleavings
    v.recorded.trueSharing += l.recorded.trueSharing
    v.recorded.falseSharing += l.recorded.falseSharing
    v.fineEstimate.trueSharing += l.fineEstimate.trueSharing
    v.fineEstimate.falseSharing += l.fineEstimate.falseSharing
    for (const t of l.threads) {
      v.threads.add(t.thread)
      let fields = v.fields.get(t.thread)
      if (!fields) v.fields.set(t.thread, (fields = new Set()))
      for (const f of t.footprints) {
        v.references.add(f.reference)
        fields.add(f.field ?? `+${f.offset}`)
      }
    }
  }
  const total = (f: SharingFigures) => f.trueSharing + f.falseSharing
  return [...out.values()]
    .map(({ fields, ...v }) => ({
      ...v,
      references: [...v.references],
      threads: [...v.threads].sort((a, b) => a - b),
      fieldsByThread: [...fields].sort((a, b) => a[0] - b[0]).map(([thread, f]) => ({ thread, fields: [...f] }))
    }))
    .sort((a, b) => total(b.fineEstimate) - total(a.fineEstimate))
}

export interface CoresRequest {
  levels: MultiCoreConfig['levels']
  cores: number
  /** Thread -> core, over the round-robin default. */
  place: Map<number, number>
  layout: LayoutFilter[]
  /** null: the recorded order; N: the threads' accesses taken round-robin, N at a time (each thread's own order kept). */
  interleave: number | null
}

export interface SessionCores {
  result: MultiCoreResult
  placement: Array<{ thread: number; core: number }>
  points: AccessPoint[]
  namer: AddressNamer
  lineSize: number
}

/**
 * The trace simulated on `cores` cores, and the lines threads share (sessionSharing, at the
 * first private level's line size, through the same layout): in the recorded order the
 * simulation rides the detector's first pass (two decodes of the trace in all); interleaved, it
 * reads the trace once per thread.
 */
export async function simulateCores(db: Db, request: CoresRequest): Promise<SessionCores & { sharing: SessionSharing }> {
  const runs = sessionThreadRuns(db)
  const kinds = readPointKinds(db)
  const threads = threadsOf(runs)
  for (const [t] of request.place) if (!threads.includes(t)) throw new StrideError(`--place names thread ${t}, but the session's threads are ${threads.join(', ')}; place those (stride simulate --cores N --json lists them under placement).`)
  const placement = placeThreads(threads, request.cores, request.place)
  const variables = await readPlacedVariables(db)
  let map: ((a: number) => number) | null = null
  if (request.layout.length > 0) {
    const layout = buildLayoutMap(variables, request.layout)
    map = (a) => layout.map(a)
  }
  const sim = new MultiCoreHierarchy({ levels: request.levels, cores: request.cores, placement }, kinds, map)
  const firstPrivate = request.levels.find((l) => !l.shared) ?? request.levels[0]!
  let sharing: SessionSharing
  if (request.interleave === null) sharing = await sessionSharing(db, firstPrivate.lineSize, request.layout, (b) => sim.run(b))
  else {
    for (const b of interleaved(db, kinds.length, runs, threads, request.interleave)) sim.run(b)
    sharing = await sessionSharing(db, firstPrivate.lineSize, request.layout)
  }
  return {
    sharing,
    result: sim.finish(),
    placement: [...placement].map(([thread, core]) => ({ thread, core })),
    points: readPoints(db, { streams: false }),
    namer: new AddressNamer(variables),
    lineSize: firstPrivate.lineSize
  }
}

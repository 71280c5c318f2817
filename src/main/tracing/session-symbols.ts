/**
 * After a trace, for every backend (Valgrind trace worker, Frida attach worker): names the
 * points and the data structures and stores the loop nests, so every session reads the same
 * in every view.
 */
import { Correlator, dominantVariable, type ProgramDataLayout } from '../correlate/correlator'
import { heapPointees, nameVariables, shapeHeapBlocks } from '../symbols/name-variables'
import type { WalkStride } from '../symbols/heap-dims'
import type { PointeeShape } from '../symbols/gdb-variables'
import { readPointStreams, type PointStreams } from '../store/stream-store'
import { endSymbolizer } from '../symbols/symbolizer-process'
import type { PointNames, PointRecord, SessionWriter } from '../store/session-writer'
import { sourceLocations } from '../symbols/addr2line'
import { readElf, type ElfInfo } from '../symbols/elf-reader'
import { keptProgramVariables } from '../symbols/kept-layout'
import { LoopIndex, readLoops } from '../symbols/loops'
import { inlineChains, type InlineLevel } from '../symbols/inline-chain'
import { inLoopInstance, loopInstance, loopLineFromChains, nestLoops } from '../symbols/loop-lines'
import { namePoints, pointModules } from '../symbols/name-points'
import { pointColumnsOf } from '../store/point-columns'
import { touchesOf } from '../store/touches'
import { WARMED_RUNS_KEY } from '../store/run-context'
import type { CachedStatics } from '../store/statics-cache'
import type { SessionInfo, TraceStopReason } from '../../shared/domain'
import { NO_DEBUG_INFO_HINT } from '../symbols/inspect-program'
import type { LoadedModule } from './proc-maps'
import { realpathSync } from 'node:fs'
import { linkedLibraries } from '../symbols/linked-libraries'
import { inSystemFolder } from '../symbols/system-objects'
import type { FirstSimulation } from '../session-analysis/first-simulation'
import { firstViews } from '../session-analysis/first-views'

/** What the correlator needs of the program: globals, and locals of functions, from its debug info. */
export async function programDataLayout(program: string): Promise<ProgramDataLayout> {
  // ldd and the libraries' symbols need nothing of gdb's: they run beside it, not after (the
  // tool's records wait for the whole layout).
  const libraries = ownLibraries(program)
  libraries.catch(() => {}) // awaited below; a failed read of the program fails first
  const elf = await readElf(program)
  const functions = elf.functions.filter((f) => f.size > 0)
  const variables = elf.hasDebugInfo
    ? await keptProgramVariables(program, elf.data.map((d) => d.name), functions.map((f) => [f.name, f.start]))
    : { globals: {}, frames: {} }
  return { globals: elf.data, functions, variables, relocatable: elf.relocatable, libraries: await libraries }
}

/**
 * The program's own shared libraries (those ldd finds outside the system's folders), with their
 * data symbols. System libraries keep their globals unnamed: thousands, rarely the data studied.
 */
async function ownLibraries(program: string): Promise<NonNullable<ProgramDataLayout['libraries']>> {
  const listed = await linkedLibraries(program)
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      return null // "not found" in ldd's list: the program will not start anyway
    }
  }
  const paths = [...new Set([...listed.values()].map(real))].filter((p): p is string => p !== null && !inSystemFolder(p))
  const libraries = await Promise.all(paths.map((path) => readElf(path).then((elf) => ({ path, globals: elf.data }), () => null)))
  return libraries.filter((l) => l !== null)
}

async function writeSymbols(
  writer: SessionWriter,
  correlator: Correlator,
  { points, modules, elf, loops: early }: TraceOutcome,
  first: FirstSimulation | null,
  /** Called once no symbol is looked up any more. */
  lookupsDone: () => void
): Promise<CachedStatics> {
  // The loop nests need no names: objdump and their lines run while the points are named
  // (or ran while the program did, when the backend started them).
  const loops = early ?? programLoops(elf)
  loops.catch(() => {}) // no objdump: reports simply have no loops (awaited below)
  const { variables, histograms } = correlator.finish()
  // The last chunk compresses on the thread pool while the objects' symbols are read.
  const committed = writer.commitAllInBackground()
  committed.catch(() => {}) // awaited below, through the stream statistics
  // The first simulation reads the stored trace while the points are named; its timeline is
  // kept per data structure (the correlator's), named when the run is stored, below.
  if (first) first.start(writer.recordingPath, committed, ...pointGroups(points, histograms))
  const groups = await pointModules(points, modules, elf)
  // The per-point stream metrics (the encoder's RSDs) once the last chunk is committed; the
  // functions' (Mohan's detector, ~100 candidates searched per irregular access: a third of an
  // irregular program's trace CPU) are computed on request (stream-store.ts), not here.
  const streamsStored = committed.then(() => writer.writeStreamMetrics([], { functionsOnRequest: true }))
  streamsStored.catch(() => {}) // awaited below, after the naming
  // The points' lines and the data structures' names are looked up side by side (child
  // processes both); the points take their data structures' names once those are in.
  const naming = nameVariables(variables, modules)
  const pointVariables = naming.then((named) => (point: number) => {
    const v = dominantVariable(histograms.get(point))
    return v === 0 ? null : (named[v]?.name ?? null)
  })
  const pointNaming = namePoints(points, modules, elf, pointVariables, groups)
  pointNaming.catch(() => {}) // awaited below, once the variables are stored
  const named = await naming
  // Heap blocks' dimensions need the points' strides (stored with the stream metrics) and
  // their pointers' types (gdb): while the points are named.
  // A lookup that fails leaves the blocks to their strides (and never an unhandled rejection
  // when the stream metrics fail first).
  const pointees = heapPointees(named).catch(() => new Map<number, PointeeShape>())
  await streamsStored
  shapeHeapBlocks(named, await pointees, walkStrides(readPointStreams(writer.db), histograms))
  const variableRows = named.map((v) => ({ id: v.id, name: v.name, kind: v.kind, start: v.start, size: v.size, type: v.type, elementSize: v.elementSize, dims: v.dims, dimsFrom: v.dimsFrom, module: v.module, allocSite: v.allocSite, reads: v.reads, writes: v.writes }))
  writer.writeVariables(variableRows, histograms)
  const names = await pointNaming
  writer.writePoints(points, names, modules)
  // The points' loops as stored (none: no objdump, or a failed write, rolled back).
  let pointLoops: ReadonlyMap<number, number> = new Map()
  await loops.then(async (l) => (pointLoops = await storeLoops(writer, points, modules, elf, l))).catch(() => {})
  lookupsDone()
  const statics = { columns: pointColumnsOf(points, names, pointLoops), touches: touchesOf(variableRows, histograms) }
  // The run's roll-up reads the points' names and loops: stored last.
  if (first) {
    await first.store(writer.db, statics.columns, statics.touches)
    // As for the stream statistics: not the user's concern, the session says why, for us.
    if (first.liveReason) writer.writeMeta({ firstSimulationAfterTrace: first.liveReason })
    // Which run the rest of the program warmed (every other run of the session is cold).
    if (first.warmedRun !== null) writer.writeMeta({ [WARMED_RUNS_KEY]: [first.warmedRun] })
  }
  return statics
}

/** A point's strides speak for a data structure when at least this share of its accesses fell in it. */
const STRIDE_OWNER_SHARE = 0.9

/** Per data structure, the RSD strides (weighted by RSD count) of the points that walked it. */
export function walkStrides(streams: ReadonlyMap<number, PointStreams>, histograms: ReadonlyMap<number, ReadonlyMap<number, number>>): (variable: number) => WalkStride[] {
  const byVariable = new Map<number, WalkStride[]>()
  for (const [point, h] of histograms) {
    const m = streams.get(point)
    if (!m || m.streams === 0) continue
    let total = 0
    h.forEach((n) => (total += n))
    h.forEach((n, v) => {
      if (n < STRIDE_OWNER_SHARE * total) return
      const list = byVariable.get(v) ?? byVariable.set(v, []).get(v)!
      for (const s of m.strides) list.push({ stride: s.stride, weight: s.fraction * m.streams })
    })
  }
  return (variable) => byVariable.get(variable) ?? []
}

/** Per point (by index), the data structure its accesses fall in most, as a dense index; and how many. */
function pointGroups(points: PointRecord[], histograms: Map<number, Map<number, number>>): [Int32Array, number] {
  const index = new Map<number, number>()
  const groups = new Int32Array(points.length)
  for (const p of points) {
    const v = dominantVariable(histograms.get(p.idx))
    let g = index.get(v)
    if (g === undefined) index.set(v, (g = index.size))
    groups[p.idx] = g
  }
  return [groups, index.size]
}

export interface ProgramLoops {
  loops: Awaited<ReturnType<typeof readLoops>>
  /** Per loop, its header's and its last back edge's inline chains (one level each without llvm-symbolizer). */
  headers: InlineLevel[][]
  latches: InlineLevel[][]
}

/** Inline chains of link addresses; the plain line table (one level) where llvm-symbolizer is missing. */
async function chainsOf(path: string, addresses: number[]): Promise<InlineLevel[][]> {
  try {
    return await inlineChains(path, addresses, { symbolizerOnly: true })
  } catch {
    const lines = await sourceLocations(path, addresses)
    return lines.map((l) => (l.file && l.line ? [{ file: l.file, line: l.line, function: null }] : []))
  }
}

/** The program's loop nests (back edges) and where their headers and latches are in the source. */
export async function programLoops(elf: ElfInfo): Promise<ProgramLoops> {
  const loops = await readLoops(elf.path)
  if (!elf.hasDebugInfo || loops.length === 0) return { loops, headers: [], latches: [] }
  const chains = await chainsOf(elf.path, [...loops.map((l) => l.start), ...loops.map((l) => l.end)])
  return { loops, headers: chains.slice(0, loops.length), latches: chains.slice(loops.length) }
}

async function storeLoops(writer: SessionWriter, points: PointRecord[], modules: LoadedModule[], elf: ElfInfo, program: ProgramLoops): Promise<ReadonlyMap<number, number>> {
  const exe = modules.find((m) => m.path === elf.path)
  if (!exe) return new Map()
  const offset = elf.relocatable ? exe.base : 0
  if (program.loops.length === 0) return new Map()
  const { headers, latches } = program
  const instances = program.loops.map((_, i) => loopInstance(headers[i] ?? [], latches[i] ?? []))
  // Nested by range and inline copy (the range of one copy's loop may span another copy's).
  const loops = nestLoops(program.loops, instances)
  const index = new LoopIndex(loops)
  const inRanges: Array<{ point: PointRecord; loops: number[] }> = []
  for (const p of points) {
    const containing = index.containing(p.pc - offset)
    if (containing.length > 0) inRanges.push({ point: p, loops: containing })
  }
  // Where each such access is at every inline level: which loop copy it is in, and its line there.
  const chains = elf.hasDebugInfo && headers.length > 0 ? await chainsOf(elf.path, inRanges.map((e) => e.point.pc - offset)) : []
  const pointLoops = new Map<number, number>()
  const body = loops.map(() => [] as InlineLevel[][])
  inRanges.forEach((e, k) => {
    const chain = chains[k] ?? []
    let innermost = -1
    for (const i of e.loops) {
      if (!inLoopInstance(instances[i]!, chain)) continue
      // Every loop containing the point (nested headers) sees its chain.
      body[i]!.push(chain)
      if (innermost < 0 || loops[i]!.depth > loops[innermost]!.depth) innermost = i
    }
    if (innermost >= 0) pointLoops.set(e.point.idx, innermost)
  })
  writer.writeLoops(
    loops.map((l, i) => ({ ...l, start: l.start + offset, end: l.end + offset, ...loopLineFromChains(instances[i]!, latches[i] ?? [], body[i]!) })),
    pointLoops
  )
  return pointLoops
}

/** What every backend's trace ends with. */
export interface TraceOutcome {
  points: PointRecord[]
  modules: LoadedModule[]
  elf: ElfInfo
  stopReason: TraceStopReason
  message: string | null
  /** The program's loop nests, when the backend started reading them while the program ran. */
  loops?: Promise<ProgramLoops>
}

/**
 * Ends a recorded trace the same way for every backend: names points and data structures,
 * stores loops and the backend's own metadata, and closes the session (partial unless the
 * trace completed). With `first`, that simulation runs beside the naming and its run is
 * stored before the session closes (`first.outcome`). A naming that fails leaves the points
 * unnamed and says so, without losing or demoting the trace. Returns whether it is partial,
 * the trace's message (the backend's, and the naming's failure if any), and what the session
 * now says of itself (`stored`).
 */
export async function finishTracedSession(writer: SessionWriter, correlator: Correlator, outcome: TraceOutcome, meta: Record<string, unknown>, first: FirstSimulation | null = null): Promise<{ partial: boolean; message: string | null; stored: StoredTraceSummary }> {
  // The naming is the trace's last lookup: llvm-symbolizer is ended once it is done, and its
  // exit awaited at the very end (the worker that ran it may end right after), not before the
  // first simulation's run is stored (6-12 ms of a heat trace's end).
  let ended: Promise<void> | null = null
  const endLookups = () => (ended ??= endSymbolizer())
  // The simulation's reader must be closed before the file is (a failed naming: it stops).
  const settleFirst = async () => {
    if (!first) return
    if (!first.outcome) first.stop()
    await first.settled()
  }
  let statics: CachedStatics | undefined
  let message = outcome.message
  try {
    statics = await writeSymbols(writer, correlator, outcome, first, endLookups)
  } catch (e) {
    await endLookups()
    await settleFirst()
    // The recorded accesses are whole: the session keeps them, complete if the trace was, its
    // points unnamed, and says why (the chunks still compressing are committed first; a
    // writer that cannot commit fails the trace as before).
    await writer.drain().catch(() => {
      throw e
    })
    const why = e instanceof Error ? e.message : String(e)
    message = [message, `the points and data structures could not be named (${why}); the accesses are kept, unnamed`].filter(Boolean).join('; ')
  }
  void endLookups()
  await settleFirst()
  writer.writeMeta({ ...meta, allocationEvents: correlator.allocEvents })
  // What the session shows on opening, from the first run just stored (none without one).
  const firstRun = first?.outcome?.run
  const views = firstRun != null ? await firstViews(writer.db, firstRun, statics, first) : []
  first?.keepLineReport(writer.db)
  const partial = outcome.stopReason !== 'completed'
  const result = {
    partial,
    stopReason: outcome.stopReason,
    stopMessage: message,
    hasDebugInfo: outcome.elf.hasDebugInfo,
    debugInfoHint: outcome.elf.hasDebugInfo ? null : NO_DEBUG_INFO_HINT
  }
  await first?.streamStored()
  writer.finish(result, statics, views, first ? (db, recording) => first.keepFirstLevel(db, recording) : undefined)
  first?.finishedWith(writer.staticsKey)
  await ended
  const stored: StoredTraceSummary = { ...result, events: writer.committedEvents, points: writer.storedPointCount, storedBytes: writer.storedByteCount }
  return { partial, message, stored }
}

/**
 * What a finished trace stored in its meta and point table, as the session now says (the
 * CLI's summary line prints it instead of opening and checking the file it was just told of).
 */
export type StoredTraceSummary = Pick<SessionInfo, 'events' | 'points' | 'storedBytes' | 'partial' | 'stopReason' | 'stopMessage' | 'hasDebugInfo' | 'debugInfoHint'>

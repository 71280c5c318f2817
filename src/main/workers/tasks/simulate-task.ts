/**
 * One or more hierarchies simulated over a stored trace in one pass, streaming the chunks in
 * order (the next one decoding on the thread pool meanwhile, so at most two in memory; each
 * chunk is decoded once and fed to every hierarchy, through its own layout filters, if any),
 * then one run stored per hierarchy. A sweep splits its hierarchies over a few pool workers.
 */
import { lockSessionForRuns } from '../../store/session-lock'
import { StrideError } from '../../../shared/errors'
import type { HierarchyConfig, RunId } from '../../../shared/domain'
import { NativeHierarchy } from '../../simulate/native-hierarchy'
import { TouchHierarchy } from '../../simulate/touch-hierarchy'
import { FirstLevelGroup, shareableFirstLevel, type GroupOptions } from '../../simulate/first-level-group'
import type { TimelineCell } from '../../simulate/hierarchy'
import { firstLevelDeclined, FirstLevelStreamWriter, readFirstLevel, writeFirstLevelState, type StoredFirstLevel } from '../../store/first-level-store'
import { firstLevelStateOf, followsStored, followStored } from '../../session-analysis/stored-first-level'
import { staticsIdentity } from '../../store/statics-identity'
import { StoredChunkVariables } from '../../store/chunk-variables'
import { buildLayoutMap, type LayoutMap, type PlacedVariable } from '../../simulate/layout-filter'
import type { AccessBatch } from '../../simulate/hierarchy'
import { refusedAsInput as refused, transformsOf, type TransformChain } from '../../session-analysis/run-transforms'
import type { AccessPoint } from '../../../shared/domain'
import { buildReport, setRunParent, storeRun } from '../../store/runs'
import { figuresOf } from '../../../shared/report-figures'
import { JsonText } from '../../services/json-text'
import type { KeptRun } from '../../store/run-rows'
import { foldLog, openDb, type Db } from '../../store/open-db'
import { countEvents, openSessionDb, storedTraceBytes } from '../../store/session-reader'
import type { SessionStatics } from '../../store/session-statics'
import { eachStoredChunk, simulationResult, timelineIntervalOf, timelineVariables } from '../../session-analysis/session-simulation'
import type { PendingRun, SimulateResult, SimulateTaskInput, TaskContext } from '../protocol'

interface Simulation {
  config: HierarchyConfig
  /** Per (point, data structure) where every chunk stores each access's data structure. */
  hierarchy: NativeHierarchy | TouchHierarchy
  layout: LayoutMap | null
  /** Loop transforms (simulate/transform/), applied before the layout filters; null: none. */
  transforms: TransformChain | null
  interval: number
  /** The group whose first level it shares (first-level-group.ts): fed and finished through it. */
  group: FirstLevelGroup | null
  /** Its timeline as merged when it followed the session's stored first level (it is finished then); else its hierarchy's. */
  timeline?: TimelineCell[]
}

/** A simulation before its hierarchy is made: what decides whether it can share a first level. */
type Planned = Omit<Simulation, 'hierarchy' | 'group'> & { options: GroupOptions; byTouch: boolean }

/**
 * Batches through a simulation's layout filters into its hierarchy; by touch with the chunk's
 * data structures where the run counts per structure.
 */
function feed(s: Simulation, batches: AccessBatch[], variables: Int32Array | null): void {
  for (const b of batches) {
    const batch = s.layout ? s.layout.mapBatch(b) : b
    if (s.hierarchy instanceof TouchHierarchy) s.hierarchy.run(batch, variables!)
    else s.hierarchy.run(batch)
  }
}

async function planned(config: HierarchyConfig, pointVariables: Int32Array, variableCount: number, total: number, placed: () => Promise<PlacedVariable[]>, points: () => AccessPoint[], byTouch: boolean): Promise<Planned> {
  const interval = timelineIntervalOf(config, total)
  let layout: LayoutMap | null = null
  if (config.layout && config.layout.length > 0) {
    try {
      layout = buildLayoutMap(await placed(), config.layout)
    } catch (e) {
      throw new StrideError(`Layout filter: ${(e as Error).message}.`, 'invalid-input')
    }
  }
  const transforms = await transformsOf(config, points)
  // A transformed nest's accesses are regenerated in another order, without their column: such
  // a run counts by point (its per-structure figures are split by access shares).
  return { config, layout, transforms, interval, options: { pointVariables, variableCount, timelineInterval: interval }, byTouch: byTouch && !transforms }
}

/**
 * The simulations, in the configs' order. Those that read the trace as it is (no layout filter,
 * no transform) and share a first cache level and TLB levels (a sweep of lower levels) run
 * that level once, each its own lower levels over what it lets through (first-level-group.ts).
 */
function simulations(plans: Planned[], kinds: Uint8Array, tlbThread: boolean | undefined, keep: FirstLevelStreamWriter | null): { sims: Simulation[]; kept: Simulation | null } {
  const sharing = new Map<string, number[]>()
  plans.forEach((p, i) => {
    const key = shareableFirstLevel(p.config)
    if (key === null) return
    const id = `${key}|${p.interval}|${p.byTouch}`
    sharing.set(id, [...(sharing.get(id) ?? []), i])
  })
  const out: Array<Simulation | null> = plans.map(() => null)
  let kept: Simulation | null = null
  for (const members of sharing.values()) {
    // The first shared first level is kept when asked, even a hierarchy's alone (as its own run costs).
    const keeping = keep !== null && kept === null
    if (members.length < 2 && !keeping) continue
    const first = plans[members[0]!]!
    const group = new FirstLevelGroup(members.map((i) => plans[i]!.config), kinds, first.options, first.byTouch)
    members.forEach((i, k) => (out[i] = { ...plans[i]!, hierarchy: group.members[k]!, group }))
    if (keeping) {
      group.onStream = (block) => keep.block(block)
      kept = out[members[0]!]!
    }
  }
  const sims = plans.map((p, i) => {
    if (out[i]) return out[i]!
    const options = { ...p.options, ...(tlbThread === undefined ? {} : { tlbThread }) }
    return { ...p, hierarchy: p.byTouch ? new TouchHierarchy(p.config, kinds, options) : new NativeHierarchy(p.config, kinds, options), group: null }
  })
  return { sims, kept }
}

export async function simulateTask(input: SimulateTaskInput, ctx: TaskContext): Promise<SimulateResult> {
  // Runs are stored beside other simulations', never while a trace writes the session (it may
  // replace the file): refused at once, before the simulation.
  const lock = lockSessionForRuns(input.session, 'a Stride simulation')
  try {
    return await simulateLocked(input, ctx)
  } finally {
    lock.release()
  }
}

async function simulateLocked(input: SimulateTaskInput, ctx: TaskContext): Promise<SimulateResult> {
  // A pool worker outlives its tasks: every handle is closed whatever happens.
  const { db: reader, statics } = ctx.sessions.open(input.session)
  let simulated: Awaited<ReturnType<typeof simulateAll>>
  try {
    simulated = await simulateAll(reader, statics, input, ctx)
  } finally {
    reader.close()
  }
  const { sims, variables, kinds, total, done, kept, keeper } = simulated
  try {
    // The kept stream's last blocks are stored before the state that vouches for them.
    const checksums = keeper ? await keeper.stream.written() : null
    return storeAll(input, ctx, statics, sims, variables, kinds, total, done, kept, keeper ? { stream: keeper.stream, checksums } : null)
  } finally {
    // A dropped stream's blocks go before the connection does.
    if (keeper) await keeper.stream.written()
    keeper?.db.close()
  }
}

/** The runs stored (and the first level the replay kept, if any: with its run). */
function storeAll(
  input: SimulateTaskInput,
  ctx: TaskContext,
  statics: SessionStatics,
  sims: Simulation[],
  variables: string[],
  kinds: Uint8Array,
  total: number,
  done: number,
  kept: Simulation | null,
  keeping: { stream: FirstLevelStreamWriter; checksums: number[] | null } | null
): SimulateResult {
  if (ctx.shouldStop()) {
    keeping?.stream.drop()
    return { runs: [], accesses: done, cancelled: true }
  }
  ctx.progress('saving', done, total)
  const writer = openSessionDb(input.session)
  try {
    for (const group of new Set(sims.map((s) => s.group))) group?.finish()
    // After its members took its figures (a timeline read drops unkept cells).
    const keptState = kept?.group ? firstLevelStateOf(kept.group.firstLevel, kept.config, kept.interval, false) : null
    const runs = sims.map(({ config, hierarchy, interval, group, timeline: cells }, index) => {
      if (!group && !cells) hierarchy.finish()
      const timeline = (cells ?? hierarchy.timelineCells()).map((c) => ({ level: c.level, variable: variables[c.variable]!, interval: c.interval, misses: c.misses }))
      // With `withRows`, the run's rows go out while the rest of it is written.
      const ahead = input.withRows ? (run: RunId, rows: KeptRun) => ctx.partial({ index, run, rows } satisfies PendingRun) : undefined
      return storeRun(writer, simulationResult(config, hierarchy, kinds.length, timeline, interval), statics, ahead)
    })
    // The run a what-if was made from: its label is read against it.
    if (input.parent != null) setRunParent(writer, runs[0]!, input.parent)
    // An older session (no statics cache yet) gets one beside its first run: later what-ifs
    // and reports then skip reading the point table row by row.
    statics.storeCache(writer)
    const figures = input.figures ? figuresNow(writer, runs[0]!, statics) : undefined
    if (keeping) {
      const { stream, checksums } = keeping
      const stored = kept !== null && keptState !== null && checksums !== null && writeFirstLevelState(writer, runs[sims.indexOf(kept)]!, keptState, checksums, staticsIdentity(writer))
      if (!stored) stream.drop()
    }
    foldLog(writer)
    return { runs, accesses: done, cancelled: false, ...(figures === undefined ? {} : { figures }) }
  } finally {
    writer.close()
  }
}

/** A run's figures as the report task would build them, from the session just written; null if they cannot be built (the client asks the pool then). */
function figuresNow(db: Db, run: RunId, statics: SessionStatics): Uint8Array | null {
  try {
    return JsonText.bytesOf(figuresOf(buildReport(db, run, statics)))
  } catch {
    return null
  }
}

/**
 * Every hierarchy over the trace's stored first level instead of the trace, where each can follow
 * it (session-analysis/stored-first-level.ts); null where one cannot (the trace is replayed).
 */
async function followAll(reader: Db, stored: StoredFirstLevel, statics: SessionStatics, input: SimulateTaskInput, ctx: TaskContext, total: number) {
  const byTouch = StoredChunkVariables.open(reader, storedVariableCount(reader)) !== null
  if (!input.configs.every((c) => followsStored(stored, c, total, timelineIntervalOf(c, total), byTouch))) return null
  const kinds = statics.kinds(reader)
  const timeline = timelineVariables(statics.pointVariables(reader))
  statics.touches(reader)
  // One interval for all: each equals the stored first level's.
  const interval = stored.state.interval
  const options = { pointVariables: timeline.pointVariables, variableCount: timeline.variables.length, timelineInterval: interval }
  const followed = followStored(stored, input.configs, kinds, options, (done) => {
    ctx.progress('simulating', done, total)
    return !ctx.shouldStop()
  })
  // Stopped, or a block that does not read back (the caller replays and keeps a whole one).
  if (!followed) return ctx.shouldStop() ? { sims: [], variables: timeline.variables, kinds, total, done: 0 } : 'damaged'
  const sims = followed.map(({ hierarchy, timeline: cells }, k): Simulation => ({ config: input.configs[k]!, hierarchy, layout: null, transforms: null, interval, group: null, timeline: cells }))
  return { sims, variables: timeline.variables, kinds, total, done: total }
}

/**
 * Every hierarchy over the stored first level where each can follow it, else the trace replayed
 * (a session without a stored first level keeps the one the replay simulates, when asked).
 */
async function simulateAll(reader: Db, statics: SessionStatics, input: SimulateTaskInput, ctx: TaskContext) {
  const total = countEvents(reader)
  const stored = readFirstLevel(reader)
  const followed = stored ? await followAll(reader, stored, statics, input, ctx, total) : null
  if (followed && followed !== 'damaged') return { ...followed, kept: null as Simulation | null, keeper: null }
  // A session without a first level (or with a damaged one) keeps the one this replay
  // simulates, for later what-ifs (one that merely does not fit this what-if stays; one whose
  // stream outgrew the trace is not tried again).
  const keep = (!stored || followed === 'damaged') && input.keepFirstLevel !== false && total > 0 && !firstLevelDeclined(reader)
  const keeperDb = keep ? openDb(input.session) : null
  const traceBytes = keep ? storedTraceBytes(reader) : 0
  const keeper = keeperDb ? new FirstLevelStreamWriter(keeperDb, () => traceBytes) : null
  try {
    return await replayAll(reader, statics, input, ctx, total, keeper, keeperDb)
  } catch (e) {
    keeper?.drop()
    await keeper?.written()
    keeperDb?.close()
    throw e
  }
}

/** The trace replayed: read once, every chunk through every hierarchy; stops between chunks when asked. */
async function replayAll(reader: Db, statics: SessionStatics, input: SimulateTaskInput, ctx: TaskContext, total: number, keeper: FirstLevelStreamWriter | null, keeperDb: Db | null) {
  let kept: Simulation | null = null
  let placed: Promise<PlacedVariable[]> | null = null
  // Loaded only for a layout filter: it reads the program's ELF file (elf-reader), which a plain what-if never needs.
  const placedOnce = () => (placed ??= import('../../session-analysis/placed-variables').then((m) => m.readPlacedVariables(reader)))
  const sims: Simulation[] = []
  const groups: FirstLevelGroup[] = []
  let kinds: Uint8Array = new Uint8Array(0)
  let variables: string[] = []
  const columns = StoredChunkVariables.open(reader, storedVariableCount(reader))
  const done = await eachStoredChunk(
    reader,
    statics.pointCount(reader),
    (chunk, accessVariables) => {
      for (const group of groups) group.run(chunk, accessVariables ?? null)
      for (const s of sims) {
        if (s.group) continue
        if (s.transforms) feed(s, refused(() => s.transforms!.push(chunk)), null)
        else feed(s, [chunk], accessVariables ?? null)
      }
    },
    (done) => {
      ctx.progress('simulating', done, total)
      // Chunks are processed synchronously otherwise: the stop message gets in here.
      return !ctx.shouldStop()
    },
    200,
    // While the first chunks decode: the points' kinds and data structures, which the
    // hierarchies need, and their touches, which storing the runs will.
    async () => {
      kinds = statics.kinds(reader)
      // Per point, the variable its accesses fall in (the reference's variable) for the timeline.
      const timeline = timelineVariables(statics.pointVariables(reader))
      variables = timeline.variables
      statics.touches(reader)
      const plans: Planned[] = []
      for (const config of input.configs) plans.push(await planned(config, timeline.pointVariables, variables.length, total, placedOnce, () => statics.points(reader), columns !== null))
      const made = simulations(plans, kinds, input.tlbThread, keeper)
      sims.push(...made.sims)
      kept = made.kept
      groups.push(...new Set(sims.flatMap((s) => (s.group ? [s.group] : []))))
    },
    columns
  )
  // A nest that ends the trace is held until now.
  if (!ctx.shouldStop()) for (const s of sims) if (s.transforms) feed(s, refused(() => s.transforms!.finish()), null)
  return { sims, variables, kinds, total, done, kept, keeper: keeperDb && keeper ? { db: keeperDb, stream: keeper } : null }
}

/** Ids of the session's data structures are below this (a column naming another is damage). */
function storedVariableCount(db: Db): number {
  const row = db.prepare('SELECT COALESCE(MAX(id), 0) + 1 AS n FROM variables').get() as { n: number } | undefined
  return row?.n ?? 1
}

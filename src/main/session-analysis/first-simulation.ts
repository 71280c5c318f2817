/**
 * A trace's first simulation (the launch dialog's cache, `stride trace --cache`), run by the
 * trace's own worker, not after the trace: while the program runs, on each chunk as it is
 * sealed (`live`, live-simulation.ts: the session writer feeds it), and where that run cannot be
 * trusted to be the stored trace's, over the stored trace beside the naming of its points. The
 * simulator needs no names: the live run's timeline is kept per point, the other's per data
 * structure as the correlator found them, and either is folded to names when the run is
 * stored, after the naming: the run is the one a `simulate` job would store for the same trace
 * (tested against it). Whatever keeps it from storing its run (a layout filter, which needs the
 * named data structures placed; an error) leaves the simulation to the caller, as before; a
 * stop after the recording cancels it.
 */
import type { HierarchyConfig, RunAdvice, RunId, RunReport } from '../../shared/domain'
import type { TimelineCell } from '../simulate/hierarchy'
import { NativeHierarchy } from '../simulate/native-hierarchy'
import { TouchHierarchy } from '../simulate/touch-hierarchy'
import type { DecodedChunk } from '../store/chunk-codec'
import { StoredChunkVariables } from '../store/chunk-variables'
import { openDb, type Db } from '../store/open-db'
import { buildLineReport, buildReport, storeRun, withStaticsKey, type SimulationResult } from '../store/runs'
import type { LineReport } from '../../shared/report-model'
import { countEvents, openSessionDb, readPointKinds } from '../store/session-reader'
import { SessionStatics } from '../store/session-statics'
import type { PointColumns } from '../store/point-columns'
import type { Touches } from '../store/touches'
import { eachStoredChunk, simulationResult, timelineIntervalOf, timelineVariables } from './session-simulation'
import { firstLevelShadow, LIVE_MAX_BYTES, LiveSimulation } from './live-simulation'
import { runsBeside } from './warm-context'
import type { NativeMissClassifier } from '../simulate/native-miss-classes'
import { writeShadowCounts } from '../store/shadow-counts'
import { FirstLevelStreamWriter, writeFirstLevelState, type FirstLevelState } from '../store/first-level-store'

/** What became of it: the stored run, or why there is none (cancelled: by the user). */
export type FirstRun = { run: RunId } | { run: null; cancelled: boolean; why: string }

interface Simulated {
  hierarchy: NativeHierarchy | TouchHierarchy
  /** The first level's shadow, fed the same accesses (null: none kept). */
  shadow: NativeMissClassifier | null
  /** Accesses simulated. */
  events: number
  interval: number
  pointCount: number
  /** The timeline's variable of each point (live: the point itself), and its cells at `interval`. */
  groups: Int32Array
  cells: TimelineCell[]
  /** The live run, fed the rest of the program's accesses too (whole-program context). */
  warmed: boolean
  /** Its first cache level's state, when the trace kept that level's stream (live runs without context). */
  firstLevel: FirstLevelState | null
}

/**
 * Progress, and a look for a stop, a few times a second. The naming needs no more: each batch
 * runs on the thread pool, so every chunk already gives this thread's event loop its turn.
 */
const PROGRESS_MS = 150

export class FirstSimulation {
  private simulated: Promise<Simulated | string> | null = null
  private stopped = false
  /** What the stored run's roll-up read (the points' columns, touches) and its rows; the trace's views share it (first-views.ts). */
  readonly statics: SessionStatics
  /** Set once the run is stored, or known not to be. */
  outcome: FirstRun | null = null
  /** Fed the chunks while the program runs (SessionWriter.feedChunks). */
  readonly live: LiveSimulation
  /** Why the stored trace was simulated again after the program ended (null: it was not). */
  liveReason: string | null = null
  /** The stored run, when it was warmed by the whole program (the trace's context reached it). */
  warmedRun: RunId | null = null
  private readonly withContext: boolean
  /** The line report built on the session being written (keepLineReport). */
  private keptLines: LineReport | null = null
  /** The views' report, then (once the writer finished) it with its statics key. */
  private pendingReport: RunReport | null = null
  private keptReport: RunReport | null = null
  private keptAdvice: RunAdvice | null = null
  /** Its report is the CLI's lines (`reportStreams: false`). */
  private readonly linesOnly: boolean
  /** Where the first cache level's stream goes while the trace records (none with context). */
  private readonly stream: FirstLevelStreamWriter | null
  /** The stored run's first level, kept with the session as it finishes (keepFirstLevel). */
  private firstLevel: { run: RunId; state: FirstLevelState } | null = null

  constructor(
    private readonly config: HierarchyConfig,
    private readonly onProgress: (done: number, total: number) => void,
    /** `reportStreams: false`: its report is laid out as the CLI's lines, which show no stream metrics or key (not read). */
    {
      reportStreams = true,
      context = false,
      session = null
    }: {
      reportStreams?: boolean
      /** The tracer feeds `live` the rest of the program's accesses too (feedContext), not the writer its chunks. */
      context?: boolean
      /** The session being written: the first cache level's stream is kept in it, for what-ifs below that level, while it stays within a multiple of the trace's chunks stored so far. */
      session?: { db: Db; storedByteCount: number } | null
    } = {}
  ) {
    this.withContext = context
    this.linesOnly = !reportStreams
    // A first level warmed by the rest of the program is not the one a what-if replays.
    this.stream = session && !context ? new FirstLevelStreamWriter(session.db, () => session.storedByteCount) : null
    this.live = new LiveSimulation(config, LIVE_MAX_BYTES, this.stream)
    this.statics = new SessionStatics({ streams: reportStreams, keyed: reportStreams })
  }

  /**
   * A layout filter places the data structures, and a loop transform finds its nest by the
   * points' lines, both known only at the end: those run after the naming.
   */
  static runsBeside(config: HierarchyConfig): boolean {
    return runsBeside(config)
  }

  /**
   * Reads the trace from `path` (a connection of its own) once `committed` resolves (the last
   * chunk stored). `groups[p]`: the data structure point p's accesses fall in most, as an
   * index; `groupCount` of them.
   */
  start(path: string, committed: Promise<void>, groups: Int32Array, groupCount: number): void {
    this.simulated = committed.then(
      () => this.simulate(path, groups, groupCount),
      () => 'the trace was not stored whole'
    )
  }

  /** Cancels it (a stop after the recording). */
  stop(): void {
    this.stopped = true
    this.live.drop('cancelled')
  }

  /** Resolves once it no longer reads the session (the writer may then close and rename it). */
  async settled(): Promise<void> {
    await this.simulated
  }

  private async simulate(path: string, groups: Int32Array, groupCount: number): Promise<Simulated | string> {
    try {
      const reader = openDb(path, { readonly: true })
      try {
        const kinds = readPointKinds(reader)
        if (kinds.length !== groups.length) return `the session has ${kinds.length} points, the correlator ${groups.length}`
        const total = countEvents(reader)
        // Nothing recorded: no run (the caller says so).
        if (total === 0) return 'nothing was recorded'
        const live = await this.live.finish(kinds, total)
        if (this.stopped) return 'cancelled'
        if (typeof live !== 'string') {
          this.onProgress(total, total)
          return { hierarchy: live.hierarchy, shadow: live.shadow, events: total, interval: live.interval, pointCount: kinds.length, groups: Int32Array.from(kinds, (_, p) => p), cells: live.cells, warmed: this.withContext, firstLevel: live.firstLevel }
        }
        // The stored trace alone: a run with context becomes a cold one (stored as such).
        this.liveReason = this.withContext ? `${live}; the run is cold, function-only` : live
        const interval = timelineIntervalOf(this.config, total)
        // Per data structure, access by access, where every chunk has its column.
        const columns = StoredChunkVariables.open(reader)
        const options = { pointVariables: groups, variableCount: groupCount, timelineInterval: interval }
        const hierarchy = columns ? new TouchHierarchy(this.config, kinds, options) : new NativeHierarchy(this.config, kinds, options)
        const shadow = firstLevelShadow(this.config)
        const between = (done: number) => {
          this.onProgress(done, total)
          return !this.stopped
        }
        const run = (chunk: DecodedChunk, variables: Int32Array | null) => (hierarchy instanceof TouchHierarchy ? hierarchy.runAsync(chunk, variables!) : hierarchy.runAsync(chunk))
        // On the thread pool: this thread names the points meanwhile.
        await eachStoredChunk(reader, kinds.length, async (chunk, variables) => void (await Promise.all([run(chunk, variables), shadow?.runAsync(chunk, kinds)])), between, PROGRESS_MS, undefined, columns)
        if (this.stopped) return 'cancelled'
        hierarchy.finish()
        return { hierarchy, shadow, events: total, interval, pointCount: kinds.length, groups, cells: hierarchy.timelineCells(), warmed: false, firstLevel: null }
      } finally {
        reader.close()
      }
    } catch (e) {
      return e instanceof Error ? e.message : String(e)
    }
  }

  /**
   * Waits for the simulation and stores its run in `db`, the session being written, whose points
   * are named and loops stored (the run's roll-up reads them; `columns`: their point columns as
   * just written, pointColumnsOf, and `touches` theirs, touchesOf, so they are not read back).
   * Never throws: `outcome` says.
   */
  async store(db: Db, columns?: PointColumns, touches?: Touches): Promise<FirstRun> {
    if (columns) this.statics.seedColumns(columns)
    if (touches) this.statics.seedTouches(touches)
    const s = await (this.simulated ?? 'not started')
    if (typeof s === 'string') return (this.outcome = { run: null, cancelled: s === 'cancelled', why: s })
    try {
      const timeline = foldTimeline(s.cells, s.groups, this.statics.pointVariables(db))
      if (!timeline) return (this.outcome = { run: null, cancelled: false, why: 'points of one data structure were named apart' })
      const run = storeRun(db, simulationResult(this.config, s.hierarchy, s.pointCount, timeline, s.interval), this.statics)
      if (s.shadow) keepShadowCounts(db, run, this.config, s.events, s.shadow, s.pointCount)
      if (s.warmed) this.warmedRun = run
      if (s.firstLevel) this.firstLevel = { run, state: s.firstLevel }
      return (this.outcome = { run })
    } catch (e) {
      return (this.outcome = { run: null, cancelled: false, why: e instanceof Error ? e.message : String(e) })
    }
  }

  /**
   * The stored run's report, before the job is reported done (the client asks for it next): the
   * one the views were derived from (keepReport), else built from the finished session at
   * `path`, where the run's rows and half of what else it reads are in memory. Null when there
   * is no run, or on any error (the pool then builds it when asked).
   */
  report(path: string): RunReport | null {
    return this.keptReport ?? this.fromSession(path, (db, run) => buildReport(db, run, this.statics))
  }

  /**
   * The run's report as the stored views were derived from it (first-views.ts), on the session
   * being written, for `report` once the writer has finished with `staticsKey`: the same report
   * a build from the finished file gives, without building it twice. Not for the CLI's lines.
   */
  keepReport(report: RunReport): void {
    if (!this.linesOnly && report.run === this.outcome?.run) this.pendingReport = report
  }

  /**
   * The advisor's diagnosis the views stored for the first run (first-views.ts): the app asks
   * for it beside the first report, and would otherwise wait for a worker to open and check the
   * file written a moment ago to read it back. Not for the CLI's lines.
   */
  keepAdvice(advice: RunAdvice): void {
    if (!this.linesOnly && advice.run === this.outcome?.run) this.keptAdvice = advice
  }

  /** The diagnosis keepAdvice kept, if any. */
  get advice(): RunAdvice | null {
    return this.keptAdvice
  }

  /** The kept stream's blocks, once stored (streamStored). */
  private streamWritten: number[] | null = null

  /** Waits for the first level's stream to be stored whole (before the writer finishes the session). */
  async streamStored(): Promise<void> {
    this.streamWritten = (await this.stream?.written()) ?? null
  }

  /**
   * Stores the first run's first level beside its stream, in the session's last steps
   * (SessionWriter.finish's `derived`, under its statics identity `recording`); without a run
   * stored from that stream, the stream's blocks go. Never throws: it is derived.
   */
  keepFirstLevel(db: Db, recording: string | null): void {
    const checksums = this.streamWritten
    const kept = this.firstLevel !== null && checksums !== null && writeFirstLevelState(db, this.firstLevel.run, this.firstLevel.state, checksums, recording)
    if (!kept) this.stream?.drop()
    this.firstLevel = null
  }

  /** The writer finished the session with this statics identity (SessionWriter.staticsKey). */
  finishedWith(staticsKey: string | null): void {
    if (this.pendingReport) this.keptReport = withStaticsKey(this.pendingReport, staticsKey)
    this.pendingReport = null
  }

  /** The stored run's totals and lines (what `stride trace --cache` prints), as `report` builds its report. */
  lineReport(path: string): LineReport | null {
    return this.keptLines ?? this.fromSession(path, (db, run) => buildLineReport(db, run, this.statics))
  }

  /**
   * Builds the line report now, from `db`, the session being written, once its points are named
   * and the run stored: nothing the table reads changes when the writer finishes, and opening
   * the finished file to read it again (a check of a file written moments ago) was most of the
   * table's cost at a trace's end. Only for the CLI's lines (`reportStreams: false`); never throws.
   */
  keepLineReport(db: Db): void {
    const run = this.outcome?.run
    if (run == null || !this.linesOnly) return
    try {
      this.keptLines = buildLineReport(db, run, this.statics)
    } catch {
      this.keptLines = null
    }
  }

  private fromSession<T>(path: string, build: (db: Db, run: RunId) => T): T | null {
    const run = this.outcome?.run
    if (run == null) return null
    try {
      const db = openSessionDb(path, { readonly: true })
      try {
        return build(db, run)
      } finally {
        db.close()
      }
    } catch {
      return null
    }
  }
}

/**
 * Timeline cells kept per group (`groups[p]`: point p's) as a run keyed by names stores them:
 * summed per name (`names[p]`, null: 'unknown'), in the order such a simulation closes them
 * (interval, level, then names in the order of the points that first fall in them). Null when
 * two points of one group have different names, which the naming never does (a point's name
 * is its data structure's).
 */
export function foldTimeline(cells: readonly TimelineCell[], groups: Int32Array, names: Array<string | null>): SimulationResult['timeline'] | null {
  const { variables, pointVariables } = timelineVariables(names)
  const nameOfGroup = new Map<number, number>()
  for (let p = 0; p < groups.length; p++) {
    const known = nameOfGroup.get(groups[p]!)
    if (known === undefined) nameOfGroup.set(groups[p]!, pointVariables[p]!)
    else if (known !== pointVariables[p]) return null
  }
  const width = variables.length
  const out: SimulationResult['timeline'] = []
  let at = 0
  while (at < cells.length) {
    // One interval's cells (they come in interval order), summed per (level, name).
    const interval = cells[at]!.interval
    const sums = new Map<number, number>()
    for (; at < cells.length && cells[at]!.interval === interval; at++) {
      const c = cells[at]!
      const v = nameOfGroup.get(c.variable)
      if (v === undefined) return null
      const key = c.level * width + v
      sums.set(key, (sums.get(key) ?? 0) + c.misses)
    }
    for (const key of [...sums.keys()].sort((a, b) => a - b)) out.push({ level: Math.floor(key / width), variable: variables[key % width]!, interval, misses: sums.get(key)! })
  }
  return out
}

/**
 * Stores what the first level's shadow counted beside the run (the advisor's three Cs without a
 * replay). Derived: a failure leaves the session without them, and the advisor replays.
 */
function keepShadowCounts(db: Db, run: RunId, config: HierarchyConfig, events: number, shadow: NativeMissClassifier, points: number): void {
  const first = config.levels[0]!
  try {
    writeShadowCounts(db, { run, level: first.name, size: first.size, assoc: first.assoc, lineSize: first.lineSize, events }, shadow.counts(points))
  } catch {
    // Nothing lost: `stride advise` replays the trace for them.
  }
}

/**
 * The parts of a session that no simulation run changes: the point table (with its stream
 * metrics), what each point touched, the data structures, the loop nests, and the
 * simulator's and the roll-up's per-point inputs. Each part is read the first time it is
 * asked for and then kept. How long that stays true is the holder's business: a command or a
 * task makes one per call; the warm pool's workers keep one per session file between tasks
 * while the file, or at least the finished recording in it (`staticsIdentity`), is unchanged
 * (workers/session-cache.ts), so a what-if and its report do not read and rebuild ~5,000
 * points each time. The per-point inputs and the touches come from the session's statics
 * cache (statics-cache.ts) when it has one for this recording: a few blobs, not a row per point.
 *
 * It also keeps the rows of the last few runs stored through it (store/run-rows.ts), so
 * the report of a what-if need not read back what the same worker just wrote; a kept run is
 * used only for the run stored under its id (same creation time and configuration).
 *
 * The parts are shared by every report built from them: callers must not mutate them.
 */
import type { AccessPoint, LoopInfo, RunId, VariableInfo } from '../../shared/domain'
import type { Db } from './open-db'
import { readLoopNests } from './loops'
import { linePlan, type LinePlan } from './line-plan'
import { readPoints } from './session-reader'
import type { PointFactColumns } from './slice-facts'
import { readPointColumns, type PointColumns } from './point-columns'
import { readTouches, type Touches } from './touches'
import { readStaticsCache, writeStaticsCache, type SimulatorColumns, type StaticsCache } from './statics-cache'
import { readVariables } from './variables'
import { staticsIdentity } from './statics-identity'
import type { KeptRun } from './run-rows'

/** Runs whose rows are kept: the what-if just stored (a sweep's few at most) is the one reported next. */
const KEPT_RUNS = 4

export class SessionStatics {
  private pointTable: AccessPoint[] | null = null
  private columnTable: PointColumns | null = null
  private simulatorTable: SimulatorColumns | null = null
  /** The session's statics cache (statics-cache.ts): undefined until looked for, null when it has none under this recording's identity. */
  private cache: StaticsCache | null | undefined
  private cacheStored = false
  private touchTable: Touches | null = null
  private variableTable: VariableInfo[] | null = null
  private loopNests: LoopInfo[] | null = null
  private lines: LinePlan | null = null
  private readonly keptRuns = new Map<RunId, KeptRun>()
  /** The recording's key, once known (undefined: not asked yet). */
  private key: string | null | undefined

  /**
   * For holders whose reports only the CLI prints: `streams: false` reads the points without
   * their stream metrics (readPoints), `keyed: false` leaves the reports without the
   * recording's key (a client's, report-figures.ts; finding it reads a few tables). `identity`:
   * the key, when the holder already found it (workers/session-cache.ts).
   */
  constructor(private readonly options: { streams?: boolean; keyed?: boolean; identity?: string | null } = {}) {
    this.key = options.identity
  }

  points(db: Db): AccessPoint[] {
    return (this.pointTable ??= readPoints(db, this.options))
  }

  /** The key a report of this holder carries (staticsIdentity, found once); null: none. */
  reportKey(db: Db): string | null {
    if (this.options.keyed === false) return null
    return this.identity(db)
  }

  private identity(db: Db): string | null {
    if (this.key === undefined) this.key = staticsIdentity(db)
    return this.key
  }

  /**
   * How many points the session has: kinds(db).length, without reading the point table when it
   * is not read yet (a simulation starts decoding with it, and reads the table meanwhile).
   */
  pointCount(db: Db): number {
    const known = this.columnTable?.kinds ?? this.simulatorTable?.kinds
    return known ? known.length : (db.prepare('SELECT COUNT(*) FROM points').pluck().get() as number)
  }

  /** Kind code per point, the simulator's input. */
  kinds(db: Db): Uint8Array {
    return this.simulatorColumns(db).kinds
  }

  /** The variable each point's accesses fall in (null: none), for the simulator's timeline. */
  pointVariables(db: Db): Array<string | null> {
    return this.simulatorColumns(db).variables
  }

  /** Each point's source line and the lines' order, for a run's table by line. */
  linePlan(db: Db): LinePlan {
    // From the point columns (a light read), not the whole point table with its disassembly.
    const { file, line } = this.columns(db).facts
    return (this.lines ??= linePlan(file, line))
  }

  touches(db: Db): Touches {
    return (this.touchTable ??= this.cached(db)?.touches() ?? readTouches(db))
  }

  variables(db: Db): VariableInfo[] {
    return (this.variableTable ??= readVariables(db))
  }

  loops(db: Db): LoopInfo[] {
    return (this.loopNests ??= readLoopNests(db))
  }

  /** The rows of a run this holder's worker stored, for its report (the last KEPT_RUNS only). */
  keepRun(run: RunId, rows: KeptRun): void {
    this.keptRuns.delete(run)
    this.keptRuns.set(run, rows)
    while (this.keptRuns.size > KEPT_RUNS) this.keptRuns.delete(this.keptRuns.keys().next().value!)
  }

  /**
   * Hands `other`, a second holder of the same finished tables (the trace's views,
   * first-views.ts), what this one has read or kept and `other` would read the same: its kept
   * runs, point columns, touches, data structures, loops, and its point table where both read
   * the stream metrics alike. Not the key: each finds its own.
   */
  lendTo(other: SessionStatics): void {
    for (const [run, rows] of this.keptRuns) if (!other.keptRuns.has(run)) other.keepRun(run, rows)
    if (this.pointTable && (this.options.streams !== false) === (other.options.streams !== false)) other.pointTable ??= this.pointTable
    other.columnTable ??= this.columnTable
    other.touchTable ??= this.touchTable
    other.variableTable ??= this.variableTable
    other.loopNests ??= this.loopNests
  }

  /** A kept run's rows, if that run is the one stored under this id (same creation time and configuration). */
  keptRun(run: RunId, createdAt: string, config: string): KeptRun | null {
    const kept = this.keptRuns.get(run)
    return kept && kept.createdAt === createdAt && kept.config === config ? kept : null
  }

  /** Per point, the columns a slice fact takes from the point (variable, function, file, line, loop). */
  factColumns(db: Db): PointFactColumns {
    return this.columns(db).facts
  }

  /** Kinds, variables and fact columns: one read of the point table for all three. */
  /** The point columns as the caller just wrote them (pointColumnsOf): not read back from the file. */
  seedColumns(columns: PointColumns): void {
    this.columnTable ??= columns
  }

  /** The touches as the caller just wrote them (touchesOf): not read back from the file. */
  seedTouches(touches: Touches): void {
    this.touchTable ??= touches
  }

  private columns(db: Db): PointColumns {
    return (this.columnTable ??= this.cached(db)?.columns() ?? readPointColumns(db))
  }

  /** The simulator's two columns: from the cache alone when the rest is not needed yet. */
  private simulatorColumns(db: Db): SimulatorColumns {
    if (this.simulatorTable) return this.simulatorTable
    if (!this.columnTable) {
      const cache = this.cached(db)
      if (cache) return (this.simulatorTable = cache.simulator())
    }
    const { kinds, facts } = this.columns(db)
    return (this.simulatorTable = { kinds, variables: facts.variable })
  }

  private cached(db: Db): StaticsCache | null {
    if (this.cache === undefined) {
      const identity = this.identity(db)
      this.cache = identity === null ? null : readStaticsCache(db, identity)
    }
    return this.cache
  }

  /**
   * Stores the point columns and touches read here as the session's statics cache (`db` open
   * to write), when it has none for this recording and both were read: a what-if of an older
   * session, beside its run, so that later ones find them.
   */
  storeCache(db: Db): void {
    if (this.cache || this.cacheStored || !this.columnTable || !this.touchTable) return
    const identity = this.identity(db)
    if (identity === null) return
    try {
      if (staticsIdentity(db) !== identity) return
      writeStaticsCache(db, identity, this.columnTable, this.touchTable)
      this.cacheStored = true
    } catch {
      // Derived: the runs stored beside it stand, and the next what-if tries again.
    }
  }
}

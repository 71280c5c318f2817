/** Simulation runs: storing a finished run, and reading it back in the CLI/API shapes. */
import { StrideError } from '../../shared/errors'
import type {
  AccessPoint,
  MissTimeline,
  ReferenceLevelStats,
  HierarchyConfig,
  LevelTotals,
  ReferenceStats,
  LevelIndex,
  PointIndex,
  RunId,
  RunReport
} from '../../shared/domain'
import {
  EXTRA_BACK_INVALIDATIONS,
  EXTRA_EVICTIONS,
  EXTRA_FIELDS,
  EXTRA_PREFETCHES,
  EXTRA_USEFUL_PREFETCHES,
  EXTRA_WRITEBACKS,
  STAT_EVICTIONS,
  STAT_FIELDS,
  STAT_LINE_ENDS,
  STAT_READ_MISSES,
  STAT_READS,
  STAT_SPATIAL_HITS,
  STAT_TEMPORAL_HITS,
  STAT_USED_BYTES,
  STAT_WRITE_MISSES,
  STAT_WRITES
} from '../simulate/hierarchy'
import { REST_OF_PROGRAM } from '../../shared/cache-context'
import { cacheContexts } from './run-context'
import { OWNER_CONTEXT, OWNER_PREFETCH, OWNER_WRITEBACK, type EvictorCount } from '../simulate/evictor-matrix'
import { groupLines, levelNames, lineSizes, spatialReuse, type LineMisses, type LineReport } from '../../shared/report-model'
import type { Db } from './open-db'
import { parseRunConfig } from './session-reader'
import { RollUp, rollUpRow, type RowRollUp } from './rollup'
import { BatchInsert } from './batch-insert'
import { exactSplits, readRunTouches, touchRowsOf, variableNames, writeRunTouches, type ExactPart } from './run-touches'
import type { TouchResults } from '../simulate/touch-hierarchy'
import { SessionStatics } from './session-statics'
import { EVICTOR_COLUMNS, EVICTOR_WIDTH, POINT_WIDTH, RUN_POINT_COLUMNS, compareText, flatRows, orNull, type EvictorRow, type KeptLevel, type KeptRun } from './run-rows'
import { allRows, allTuples, getRow, oneRow } from './rows'

/** What a finished simulation hands to the store (layouts of simulate/hierarchy.ts). */
export interface SimulationResult {
  config: HierarchyConfig
  accesses: number
  totals: LevelTotals[]
  /** point x level x STAT_FIELDS */
  pointStats: Float64Array
  pointCount: number
  /** level x EXTRA_FIELDS */
  extras: Float64Array
  /** Per level: evictee x evictor counts (owner codes of simulate/evictor-matrix.ts). */
  evictors: EvictorCount[][]
  timeline: Array<{ level: LevelIndex; variable: string; interval: number; misses: number }>
  timelineInterval: number | null
  /** Per (point, data structure) counts, when the simulator had each access's data structure. */
  touches?: TouchResults
}

/**
 * What a run's report reads of it, from the simulator's result: the rows storeRun writes, in
 * the report statements' orders, and each row's evictions (which the report does not read, the
 * roll-up does).
 */
function keptRunOf(r: SimulationResult, createdAt: string): { kept: KeptRun; evictions: Float64Array } {
  const nLevels = r.totals.length
  const levels: KeptLevel[] = r.totals.map((t, l) => {
    const e = l * EXTRA_FIELDS
    return {
      level: l,
      name: t.name,
      reads: t.reads,
      writes: t.writes,
      readMisses: t.readMisses,
      writeMisses: t.writeMisses,
      metrics: {
        writebacks: r.extras[e + EXTRA_WRITEBACKS]!,
        prefetches: r.extras[e + EXTRA_PREFETCHES]!,
        usefulPrefetches: r.extras[e + EXTRA_USEFUL_PREFETCHES]!,
        backInvalidations: r.extras[e + EXTRA_BACK_INVALIDATIONS]!,
        evictions: r.extras[e + EXTRA_EVICTIONS]!
      }
    }
  })
  const rows = new Float64Array(r.pointCount * nLevels * POINT_WIDTH)
  const evictions = new Float64Array(r.pointCount * nLevels)
  let stored = 0
  const s = r.pointStats
  for (let p = 0; p < r.pointCount; p++) {
    for (let l = 0; l < nLevels; l++) {
      const at = (p * nLevels + l) * STAT_FIELDS
      const reads = s[at + STAT_READS]!
      const writes = s[at + STAT_WRITES]!
      const lineEnds = s[at + STAT_LINE_ENDS]!
      // A point can own lines at a level it never accessed directly only through inclusion; skip empty rows.
      if (reads === 0 && writes === 0 && lineEnds === 0) continue
      // RUN_POINT_COLUMNS' order.
      const w = stored * POINT_WIDTH
      rows[w] = p
      rows[w + 1] = l
      rows[w + 2] = reads
      rows[w + 3] = writes
      rows[w + 4] = s[at + STAT_READ_MISSES]!
      rows[w + 5] = s[at + STAT_WRITE_MISSES]!
      rows[w + 6] = s[at + STAT_TEMPORAL_HITS]!
      rows[w + 7] = s[at + STAT_SPATIAL_HITS]!
      rows[w + 8] = s[at + STAT_USED_BYTES]!
      rows[w + 9] = lineEnds
      evictions[stored++] = s[at + STAT_EVICTIONS]!
    }
  }
  const evictorRows: EvictorRow[] = []
  r.evictors.forEach((entries, l) => {
    for (const e of entries) evictorRows.push([l, e.evictee, e.evictor, e.count])
  })
  // The report statement's order; ties (same level, count and evictor) are other evictees' rows, whose order no report shows.
  evictorRows.sort((a, b) => a[0] - b[0] || b[3] - a[3] || a[2] - b[2] || a[1] - b[1])
  const timeline = r.timeline.map((c) => ({ level: c.level, variable: c.variable, interval: c.interval, misses: c.misses }))
  timeline.sort((a, b) => a.level - b.level || compareText(a.variable, b.variable) || a.interval - b.interval)
  return {
    kept: { createdAt, config: JSON.stringify(r.config), levels, timelineInterval: r.timelineInterval, timeline, points: rows.slice(0, stored * POINT_WIDTH), evictors: flatRows(evictorRows, EVICTOR_WIDTH), touches: r.touches ? touchRowsOf(r.touches, nLevels) : null },
    evictions: evictions.subarray(0, stored)
  }
}

/**
 * Stores totals, the per point x level counts and the simulator's metrics, in one
 * transaction, with the run's roll-up built from the same rows in memory. `statics` gives
 * the point columns and touches the roll-up needs (a warm worker's are already read).
 * `ahead`, if given, gets the run's id and rows inside the transaction, once the id is known
 * and before the rest is written: a caller can report the run while it is being stored (the
 * run is in the file only if storeRun then returns).
 */
export function storeRun(db: Db, r: SimulationResult, statics: SessionStatics = new SessionStatics(), ahead?: (run: RunId, kept: KeptRun) => void): RunId {
  const nCaches = r.config.levels.length
  const columns = statics.factColumns(db)
  const touches = statics.touches(db)
  const { kept, evictions } = keptRunOf(r, new Date().toISOString())
  const exact = kept.touches ? exactSplits(kept.touches, variableNames(db)) : undefined
  const run = db.transaction(() => {
    const run = Number(
      db.prepare('INSERT INTO runs (created_at, config, accesses, timeline_interval) VALUES (?, ?, ?, ?)').run(kept.createdAt, kept.config, r.accesses, r.timelineInterval).lastInsertRowid
    )
    ahead?.(run, kept)
    const level = db.prepare('INSERT INTO run_levels (run, level, name, reads, writes, read_misses, write_misses) VALUES (?,?,?,?,?,?,?)')
    const levelMetrics = db.prepare(
      'INSERT INTO run_level_metrics (run, level, kind, writebacks, prefetches, useful_prefetches, back_invalidations, evictions) VALUES (?,?,?,?,?,?,?,?)'
    )
    for (const t of kept.levels) {
      level.run(run, t.level, t.name, t.reads, t.writes, t.readMisses, t.writeMisses)
      const m = t.metrics!
      levelMetrics.run(run, t.level, t.level < nCaches ? 'cache' : 'tlb', m.writebacks, m.prefetches, m.usefulPrefetches, m.backInvalidations, m.evictions)
    }
    const point = new BatchInsert(db, 'run_points', ['run', 'point', 'level', 'reads', 'writes', 'read_misses', 'write_misses'])
    const metrics = new BatchInsert(db, 'run_point_metrics', ['run', 'point', 'level', 'temporal_hits', 'spatial_hits', 'used_bytes', 'line_ends', 'evictions'])
    const rows = kept.points
    for (let i = 0, w = 0; w < rows.length; i++, w += POINT_WIDTH) {
      point.add(run, rows[w]!, rows[w + 1]!, rows[w + 2]!, rows[w + 3]!, rows[w + 4]!, rows[w + 5]!)
      metrics.add(run, rows[w]!, rows[w + 1]!, rows[w + 6]!, rows[w + 7]!, rows[w + 8]!, rows[w + 9]!, evictions[i]!)
    }
    point.finish()
    metrics.finish()
    const evictor = new BatchInsert(db, 'run_evictors', ['run', 'level', 'evictee', 'evictor', 'count'])
    r.evictors.forEach((entries, l) => {
      for (const e of entries) evictor.add(run, l, e.evictee, e.evictor, e.count)
    })
    evictor.finish()
    const cell = new BatchInsert(db, 'run_timeline', ['run', 'level', 'variable', 'interval', 'misses'])
    for (const c of r.timeline) cell.add(run, c.level, c.variable, c.interval, c.misses)
    cell.finish()
    if (kept.touches) writeRunTouches(db, run, kept.touches)
    // The rows just stored, in the order eachSliceFact reads them back (point, then level).
    const rollup: RowRollUp = { rollup: new RollUp(), points: [] }
    for (let i = 0; i < evictions.length; i++) rollUpRow(rollup, columns, touches, rows, i * POINT_WIDTH, evictions[i]!, exact)
    rollup.rollup.store(db, run)
    return run
  })()
  // Committed: the report of this run, asked next, needs not read back what was just written.
  statics.keepRun(run, kept)
  return run
}

/**
 * Gives a run a label (null: back to the one derived from its configuration). The label is
 * cleaned to one line (shared/run-labels.ts cleanLabel) by the caller.
 */
export function renameRun(db: Db, run: RunId, label: string | null): void {
  const changed = db.prepare('UPDATE runs SET label = ? WHERE run = ?').run(label, run).changes
  if (changed === 0) throw new StrideError(`Run ${run} is not in this session; "stride runs" lists its runs.`, 'not-found')
}

/** Records the run `run` was made from (a what-if's run), which its derived label is read against. */
export function setRunParent(db: Db, run: RunId, parent: RunId | null): void {
  db.prepare('UPDATE runs SET parent = ? WHERE run = ?').run(parent, run)
}

export function latestRun(db: Db): RunId | null {
  return oneRow(db.prepare('SELECT MAX(run) AS run FROM runs'), { run: 'int?' }).run
}


/** Names of a run's levels in stats order: caches, then TLB levels. */
const ownerName = (points: AccessPoint[], owner: number): string =>
  owner === OWNER_PREFETCH ? 'prefetch' : owner === OWNER_WRITEBACK ? 'write-back' : owner === OWNER_CONTEXT ? REST_OF_PROGRAM : (points[owner]?.id ?? `point_${owner}`)

/**
 * A stored run as the API's RunReport. The session's parts that no run changes (points,
 * touches, data structures, loops) come from `statics`, so a caller that already holds them
 * (a sweep reports several runs; the CLI reads them while the simulation runs; a warm worker
 * keeps them between tasks) does not read them again.
 */
export function buildReport(db: Db, runArg: RunId | null, statics: SessionStatics = new SessionStatics()): RunReport {
  const run = storedRun(db, runArg)
  return reportOfRun(db, run, readRun(db, run, statics), statics)
}

/** A stored run's totals and lines (lineReportOfRun): its table by line without the rest of its report. */
export function buildLineReport(db: Db, runArg: RunId | null, statics: SessionStatics = new SessionStatics()): LineReport {
  const run = storedRun(db, runArg)
  return lineReportOfRun(db, run, readRun(db, run, statics), statics)
}

/** The run asked for, or the latest (null). */
function storedRun(db: Db, run: RunId | null): RunId {
  const found = run ?? latestRun(db)
  if (found === null) throw new StrideError('This session has no simulation runs yet; run "stride simulate SESSION --cache L1:32K:8:64" first.', 'not-found')
  return found
}

/** What a report reads of a stored run: kept by `statics` if it stored that very run, else read from the file. */
export function readRun(db: Db, run: RunId, statics: SessionStatics): KeptRun {
  const runRow = getRow(db.prepare('SELECT config, created_at, timeline_interval FROM runs WHERE run = ?'), { config: 'text', created_at: 'text', timeline_interval: 'number?' }, run)
  if (!runRow) throw new StrideError(`Run ${run} is not in this session; "stride info" lists its runs.`, 'not-found')
  const kept = statics.keptRun(run, runRow.created_at, runRow.config)
  if (kept) return kept
  const metrics = new Map(
    allRows(db.prepare('SELECT level, writebacks, prefetches, useful_prefetches, back_invalidations, evictions FROM run_level_metrics WHERE run = ?'), { level: 'number', writebacks: 'number', prefetches: 'number', useful_prefetches: 'number', back_invalidations: 'number', evictions: 'number' }, run).map((r) => [
      r.level,
      { writebacks: r.writebacks, prefetches: r.prefetches, usefulPrefetches: r.useful_prefetches, backInvalidations: r.back_invalidations, evictions: r.evictions }
    ])
  )
  const levels: KeptLevel[] = allRows(db.prepare('SELECT level, name, reads, writes, read_misses, write_misses FROM run_levels WHERE run = ? ORDER BY level'), { level: 'number', name: 'text', reads: 'number', writes: 'number', read_misses: 'number', write_misses: 'number' }, run).map((r) => ({
    level: r.level,
    name: r.name,
    reads: r.reads,
    writes: r.writes,
    readMisses: r.read_misses,
    writeMisses: r.write_misses,
    metrics: metrics.get(r.level) ?? null
  }))
  const points = flatRows(allTuples(
    db.prepare(
      `SELECT p.point, p.level, p.reads, p.writes, p.read_misses, p.write_misses,
              m.temporal_hits, m.spatial_hits, m.used_bytes, m.line_ends
         FROM run_points p LEFT JOIN run_point_metrics m ON m.run = p.run AND m.point = p.point AND m.level = p.level
        WHERE p.run = ? ORDER BY p.point, p.level`
    ),
    RUN_POINT_COLUMNS,
    run
  ), POINT_WIDTH)
  const evictors = flatRows(allTuples(db.prepare('SELECT level, evictee, evictor, count FROM run_evictors WHERE run = ? ORDER BY level, count DESC, evictor'), EVICTOR_COLUMNS, run), EVICTOR_WIDTH)
  // Read only where the report shows timelines (a run with level metrics) and has an interval.
  const timeline = metrics.size > 0 && runRow.timeline_interval
    ? allRows(db.prepare('SELECT level, variable, interval, misses FROM run_timeline WHERE run = ? ORDER BY level, variable, interval'), { level: 'number', variable: 'text', interval: 'number', misses: 'number' }, run)
    : []
  return { createdAt: runRow.created_at, config: runRow.config, levels, timelineInterval: runRow.timeline_interval, timeline, points, evictors, touches: readRunTouches(db, run) }
}

/**
 * Run `run`'s report from what was stored of it (`rec`: readRun's, or the rows storeRun hands
 * out ahead of its commit). The session's parts come from `statics`, read from `db` if not held.
 */
export function reportOfRun(db: Db, run: RunId, rec: KeptRun, statics: SessionStatics): RunReport {
  const { config, names, lines, nCaches, withMetrics, levels } = runHead(run, rec)
  const points = statics.points(db)
  const rows = rec.points
  const refs = new Map<number, ReferenceStats>()
  // Rows read by index from the flat array: a whole-program run has thousands (an array or
  // a destructuring per row was most of this loop's time while it runs cold, once per CLI report).
  for (let at = 0; at < rows.length; at += POINT_WIDTH) {
    const point = rows[at]!
    const level = rows[at + 1]!
    const p = points[point]
    if (!p) continue
    let ref = refs.get(point)
    if (!ref) {
      ref = { id: p.id, pc: p.pc, kind: p.kind, file: p.file, line: p.line, function: p.function, variable: p.variable, sourceExpr: p.sourceExpr ?? null, disasm: p.disasm ?? null, reads: 0, writes: 0, levels: {} }
      // Set after `levels`, where the spread into the literal put it, without the spread's copy.
      if (p.streams) ref.streams = p.streams
      refs.set(point, ref)
    }
    if (level === 0) {
      ref.reads = rows[at + 2]!
      ref.writes = rows[at + 3]!
    }
    const name = names[level] ?? `L${level + 1}`
    const stats = rowLevelStats(rows, at, nCaches, lines)
    ref.levels[name] = stats
  }
  // Evictors: per evictee reference, who evicted its lines, with the fraction of its evictions.
  const evRows = rec.evictors
  // Per level, per evictee: all its evictions (numbers as keys, no text key per row).
  const evictedTotal = new Map<number, Map<number, number>>()
  for (let at = 0; at < evRows.length; at += EVICTOR_WIDTH) {
    const level = evRows[at]!
    const evictee = evRows[at + 1]!
    let totals = evictedTotal.get(level)
    if (!totals) evictedTotal.set(level, (totals = new Map()))
    totals.set(evictee, (totals.get(evictee) ?? 0) + evRows[at + 3]!)
  }
  const withEvictors = rows.length > 0 && withMetrics
  if (withEvictors) for (const ref of refs.values()) ref.evictors = []
  for (let at = 0; at < evRows.length; at += EVICTOR_WIDTH) {
    const level = evRows[at]!
    const evictee = evRows[at + 1]!
    const ref = refs.get(evictee)
    if (!ref) continue
    const count = evRows[at + 3]!
    ;(ref.evictors ??= []).push({ level: names[level] ?? `L${level + 1}`, by: ownerName(points, evRows[at + 2]!), count, fraction: count / evictedTotal.get(level)!.get(evictee)! })
  }
  // A reference on several data structures: each one's figures as the simulator counted them,
  // where the run has them (else the report model splits by access shares).
  const exact = rec.touches ? exactSplits(rec.touches, variableNames(db)) : null
  for (const [point, touches] of statics.touches(db)) {
    const ref = refs.get(point)
    if (!ref || touches.length <= 1) continue
    const byLevel = exact?.get(point)
    ref.touches = byLevel ? touches.map((t) => ({ ...t, ...exactTouch(t.variable, byLevel, names, nCaches, lines) })) : touches
  }
  // In an order no trace's numbering of its points shows through: points are numbered as the
  // program first ran them, which a program's timing can change (lz4 checks a clock for its
  // progress line), while a reference's id is the same in every trace of one build.
  const references = [...refs.values()].sort((a, b) => compareText(a.id, b.id) || compareText(a.pc, b.pc))
  const levelIndex = new Map(names.map((n, i) => [n, i]))
  for (const ref of references) ref.evictors?.sort((a, b) => levelIndex.get(a.level)! - levelIndex.get(b.level)! || b.count - a.count || compareText(a.by, b.by))
  const report: RunReport = { run, config, levels, lines: groupLines(references, names, lines), references }
  if (withMetrics) report.timelines = timelinesOf(rec, names)
  const variables = statics.variables(db)
  if (variables.length > 0) report.variables = variables
  const loops = statics.loops(db)
  if (loops.length > 0) report.loops = loops
  const key = statics.reportKey(db)
  if (key !== null) report.staticsKey = key
  const context = cacheContexts(db)(run)
  if (context) report.cacheContext = context
  return report
}

/**
 * `report` as reportOfRun lays it out with `key` as its statics key (none: null): a report
 * built on a session still being written, whose key only its finish decides (session-writer.ts).
 * The same fields in the same order, so its JSON is the one a later build gives.
 */
export function withStaticsKey(report: RunReport, key: string | null): RunReport {
  const { staticsKey: _old, cacheContext, ...rest } = report
  const out: RunReport = { ...rest }
  if (key !== null) out.staticsKey = key
  if (cacheContext) out.cacheContext = cacheContext
  return out
}

/** What a report shows of a run's configuration and totals. */
function runHead(run: RunId, rec: KeptRun) {
  const config = parseRunConfig(run, rec.config)
  const nCaches = config.levels.length
  const levels: LevelTotals[] = rec.levels.map((r) => {
    const t: LevelTotals = { name: r.name, reads: r.reads, writes: r.writes, readMisses: r.readMisses, writeMisses: r.writeMisses }
    const e = r.metrics
    if (e) Object.assign(t, { kind: r.level < nCaches ? 'cache' : 'tlb', ...e })
    return t
  })
  return { config, names: levelNames(config), lines: lineSizes(config), nCaches, withMetrics: rec.levels.some((l) => l.metrics !== null), levels }
}

/** A reference's figures at one level, from its flat row at `at` (RUN_POINT_COLUMNS). */
/** One data structure's part of a reference, as counted: reads and writes (first level) and its stats per level. */
function exactTouch(variable: string, byLevel: Map<number, ExactPart[]>, names: string[], nCaches: number, lines: number[]): { reads: number; writes: number; levels: Record<string, ReferenceLevelStats> } {
  const levels: Record<string, ReferenceLevelStats> = {}
  let reads = 0
  let writes = 0
  for (const [level, parts] of byLevel) {
    const part = parts.find((p) => p.variable === variable)
    const row = Float64Array.of(0, level, part?.reads ?? 0, part?.writes ?? 0, part?.readMisses ?? 0, part?.writeMisses ?? 0, part?.temporalHits ?? 0, part?.spatialHits ?? 0, part?.usedBytes ?? 0, part?.lineEnds ?? 0)
    levels[names[level] ?? `L${level + 1}`] = rowLevelStats(row, 0, nCaches, lines)
    if (level === 0) {
      reads = row[2]!
      writes = row[3]!
    }
  }
  return { reads, writes, levels }
}

function rowLevelStats(rows: Float64Array, at: number, nCaches: number, lines: number[]): ReferenceLevelStats {
  const level = rows[at + 1]!
  const readMisses = rows[at + 4]!
  const writeMisses = rows[at + 5]!
  const temporalHits = orNull(rows[at + 6]!)
  const misses = readMisses + writeMisses
  const stats: ReferenceLevelStats = { hits: rows[at + 2]! + rows[at + 3]! - misses, misses, readMisses, writeMisses }
  if (temporalHits !== null && level < nCaches) {
    const usedBytes = rows[at + 8]!
    const lineEnds = rows[at + 9]!
    stats.temporalHits = temporalHits
    stats.spatialHits = rows[at + 7]!
    stats.usedBytes = usedBytes
    stats.lineEnds = lineEnds
    stats.spatialReuse = spatialReuse(usedBytes, lineEnds, lines[level] ?? 1)
  }
  return stats
}

/**
 * Run `run`'s totals and its lines' accesses and misses, as its report (reportOfRun) has them,
 * without building its references, evictors or timelines: what `stride simulate` prints of a
 * run. The rows are summed by line into one typed array, through the session's line plan.
 */
export function lineReportOfRun(db: Db, run: RunId, rec: KeptRun, statics: SessionStatics): LineReport {
  const { config, names, levels } = runHead(run, rec)
  const plan = statics.linePlan(db)
  const rows = rec.points
  const nLevels = names.length
  // Per line: reads, writes, then read and write misses per level.
  const width = 2 + 2 * nLevels
  const sums = new Float64Array(plan.files.length * width)
  const seen = new Uint8Array(plan.files.length)
  for (let at = 0; at < rows.length; at += POINT_WIDTH) {
    const point = rows[at]!
    const level = rows[at + 1]!
    const line = point < plan.lineOf.length ? plan.lineOf[point]! : -1
    // A row of a level the configuration does not name is not a stored run's; nor its table.
    if (line < 0 || level >= nLevels) continue
    const base = line * width
    seen[line] = 1
    if (level === 0) {
      sums[base] += rows[at + 2]!
      sums[base + 1] += rows[at + 3]!
    }
    sums[base + 2 + 2 * level] += rows[at + 4]!
    sums[base + 3 + 2 * level] += rows[at + 5]!
  }
  const lines: LineMisses[] = []
  for (const line of plan.order) {
    if (!seen[line]) continue
    const base = line * width
    const byLevel: LineMisses['levels'] = {}
    for (let l = 0; l < nLevels; l++) byLevel[names[l]!] = { readMisses: sums[base + 2 + 2 * l]!, writeMisses: sums[base + 3 + 2 * l]! }
    lines.push({ file: plan.files[line]!, line: plan.lines[line]!, reads: sums[base]!, writes: sums[base + 1]!, levels: byLevel })
  }
  const context = cacheContexts(db)(run)
  return { run, config, levels, lines, ...(context ? { cacheContext: context } : {}) }
}

function timelinesOf(rec: KeptRun, names: string[]): MissTimeline[] {
  const interval = rec.timelineInterval
  if (!interval) return []
  const cells = rec.timeline
  const count = cells.reduce((m, c) => Math.max(m, c.interval + 1), 0)
  const byLevel = new Map<number, MissTimeline>()
  for (const c of cells) {
    let t = byLevel.get(c.level)
    if (!t) {
      t = { level: names[c.level] ?? `L${c.level + 1}`, interval, series: {} }
      byLevel.set(c.level, t)
    }
    ;(t.series[c.variable] ??= new Array<number>(count).fill(0))[c.interval] = c.misses
  }
  return [...byLevel.values()]
}

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
import { OWNER_PREFETCH, OWNER_WRITEBACK, type EvictorCount } from '../simulate/evictor-matrix'
import { groupLines, levelNames, lineSizes, spatialReuse } from '../../shared/report-model'
import type { Db } from './open-db'
import { parseRunConfig } from './session-reader'
import { RollUp, rollUpRow, type RowRollUp } from './rollup'
import { BatchInsert } from './batch-insert'
import { SessionStatics } from './session-statics'
import { EVICTOR_COLUMNS, EVICTOR_WIDTH, POINT_WIDTH, RUN_POINT_COLUMNS, flatRows, orNull, type EvictorRow, type KeptRun } from './run-rows'
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
}

/**
 * Stores totals, the per point x level counts and the simulator's metrics, in one
 * transaction, with the run's roll-up built from the same rows in memory. `statics` gives
 * the point columns and touches the roll-up needs (a warm worker's are already read).
 */
export function storeRun(db: Db, r: SimulationResult, statics: SessionStatics = new SessionStatics()): RunId {
  const nLevels = r.totals.length
  const nCaches = r.config.levels.length
  const columns = statics.factColumns(db)
  const touches = statics.touches(db)
  const kept: KeptRun = { createdAt: new Date().toISOString(), config: JSON.stringify(r.config), points: new Float64Array(0), evictors: new Float64Array(0) }
  const run = db.transaction(() => {
    const run = Number(
      db.prepare('INSERT INTO runs (created_at, config, accesses, timeline_interval) VALUES (?, ?, ?, ?)').run(kept.createdAt, kept.config, r.accesses, r.timelineInterval).lastInsertRowid
    )
    const level = db.prepare('INSERT INTO run_levels (run, level, name, reads, writes, read_misses, write_misses) VALUES (?,?,?,?,?,?,?)')
    const levelMetrics = db.prepare(
      'INSERT INTO run_level_metrics (run, level, kind, writebacks, prefetches, useful_prefetches, back_invalidations, evictions) VALUES (?,?,?,?,?,?,?,?)'
    )
    r.totals.forEach((t, l) => {
      level.run(run, l, t.name, t.reads, t.writes, t.readMisses, t.writeMisses)
      const e = l * EXTRA_FIELDS
      levelMetrics.run(run, l, l < nCaches ? 'cache' : 'tlb', r.extras[e + EXTRA_WRITEBACKS]!, r.extras[e + EXTRA_PREFETCHES]!, r.extras[e + EXTRA_USEFUL_PREFETCHES]!, r.extras[e + EXTRA_BACK_INVALIDATIONS]!, r.extras[e + EXTRA_EVICTIONS]!)
    })
    const point = new BatchInsert(db, 'run_points', ['run', 'point', 'level', 'reads', 'writes', 'read_misses', 'write_misses'])
    const metrics = new BatchInsert(db, 'run_point_metrics', ['run', 'point', 'level', 'temporal_hits', 'spatial_hits', 'used_bytes', 'line_ends', 'evictions'])
    // Each stored row once, as the report reads it back (flat, at most a row per point and
    // level), and its evictions for the roll-up.
    const evictions: number[] = []
    const rows = new Float64Array(r.pointCount * nLevels * POINT_WIDTH)
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
        const readMisses = s[at + STAT_READ_MISSES]!
        const writeMisses = s[at + STAT_WRITE_MISSES]!
        const temporalHits = s[at + STAT_TEMPORAL_HITS]!
        const spatialHits = s[at + STAT_SPATIAL_HITS]!
        const usedBytes = s[at + STAT_USED_BYTES]!
        const evicted = s[at + STAT_EVICTIONS]!
        // RUN_POINT_COLUMNS' order.
        const w = stored++ * POINT_WIDTH
        rows[w] = p
        rows[w + 1] = l
        rows[w + 2] = reads
        rows[w + 3] = writes
        rows[w + 4] = readMisses
        rows[w + 5] = writeMisses
        rows[w + 6] = temporalHits
        rows[w + 7] = spatialHits
        rows[w + 8] = usedBytes
        rows[w + 9] = lineEnds
        evictions.push(evicted)
        point.add(run, p, l, reads, writes, readMisses, writeMisses)
        metrics.add(run, p, l, temporalHits, spatialHits, usedBytes, lineEnds, evicted)
      }
    }
    point.finish()
    metrics.finish()
    kept.points = rows.slice(0, stored * POINT_WIDTH)
    const evictor = new BatchInsert(db, 'run_evictors', ['run', 'level', 'evictee', 'evictor', 'count'])
    const evictorRows: EvictorRow[] = []
    r.evictors.forEach((entries, l) => {
      for (const e of entries) {
        evictor.add(run, l, e.evictee, e.evictor, e.count)
        evictorRows.push([l, e.evictee, e.evictor, e.count])
      }
    })
    evictor.finish()
    // The report statement's order; ties (same level, count and evictor) are other evictees' rows, whose order no report shows.
    evictorRows.sort((a, b) => a[0] - b[0] || b[3] - a[3] || a[2] - b[2] || a[1] - b[1])
    kept.evictors = flatRows(evictorRows, EVICTOR_WIDTH)
    const cell = new BatchInsert(db, 'run_timeline', ['run', 'level', 'variable', 'interval', 'misses'])
    for (const c of r.timeline) cell.add(run, c.level, c.variable, c.interval, c.misses)
    cell.finish()
    // The rows just stored, in the order eachSliceFact reads them back (point, then level).
    const rollup: RowRollUp = { rollup: new RollUp(), points: [] }
    for (let i = 0; i < stored; i++) rollUpRow(rollup, columns, touches, kept.points, i * POINT_WIDTH, evictions[i]!)
    rollup.rollup.store(db, run)
    return run
  })()
  // Committed: the report of this run, asked next, needs not read back what was just written.
  statics.keepRun(run, kept)
  return run
}

export function latestRun(db: Db): RunId | null {
  return oneRow(db.prepare('SELECT MAX(run) AS run FROM runs'), { run: 'int?' }).run
}


/** Names of a run's levels in stats order: caches, then TLB levels. */
const ownerName = (points: AccessPoint[], owner: number): string =>
  owner === OWNER_PREFETCH ? 'prefetch' : owner === OWNER_WRITEBACK ? 'write-back' : (points[owner]?.id ?? `point_${owner}`)

/**
 * A stored run as the API's RunReport. The session's parts that no run changes (points,
 * touches, data structures, loops) come from `statics`, so a caller that already holds them
 * (a sweep reports several runs; the CLI reads them while the simulation runs; a warm worker
 * keeps them between tasks) does not read them again.
 */
export function buildReport(db: Db, runArg: RunId | null, statics: SessionStatics = new SessionStatics()): RunReport {
  const run = runArg ?? latestRun(db)
  if (run === null) throw new StrideError('This session has no simulation runs yet; run "stride simulate SESSION --cache L1:32K:8:64" first.', 'not-found')
  const runRow = getRow(db.prepare('SELECT config, created_at FROM runs WHERE run = ?'), { config: 'text', created_at: 'text' }, run)
  if (!runRow) throw new StrideError(`Run ${run} is not in this session; "stride info" lists its runs.`, 'not-found')
  const config = parseRunConfig(run, runRow.config)
  const names = levelNames(config)
  const lines = lineSizes(config)
  const nCaches = config.levels.length
  const extras = new Map(
    (allRows(db.prepare('SELECT level, writebacks, prefetches, useful_prefetches, back_invalidations, evictions FROM run_level_metrics WHERE run = ?'), { level: 'number', writebacks: 'number', prefetches: 'number', useful_prefetches: 'number', back_invalidations: 'number', evictions: 'number' }, run)).map((r) => [r.level, r])
  )
  const levels: LevelTotals[] = (allRows(db.prepare('SELECT level, name, reads, writes, read_misses, write_misses FROM run_levels WHERE run = ? ORDER BY level'), { level: 'number', name: 'text', reads: 'number', writes: 'number', read_misses: 'number', write_misses: 'number' }, run)).map((r) => {
    const t: LevelTotals = { name: r.name, reads: r.reads, writes: r.writes, readMisses: r.read_misses, writeMisses: r.write_misses }
    const e = extras.get(r.level)
    if (e)
      Object.assign(t, {
        kind: r.level < nCaches ? 'cache' : 'tlb',
        writebacks: e.writebacks,
        prefetches: e.prefetches,
        usefulPrefetches: e.useful_prefetches,
        backInvalidations: e.back_invalidations,
        evictions: e.evictions
      })
    return t
  })

  const points = statics.points(db)
  const kept = statics.keptRun(run, runRow.created_at, runRow.config)
  const rows = kept?.points ?? flatRows(allTuples(
    db.prepare(
      `SELECT p.point, p.level, p.reads, p.writes, p.read_misses, p.write_misses,
              m.temporal_hits, m.spatial_hits, m.used_bytes, m.line_ends
         FROM run_points p LEFT JOIN run_point_metrics m ON m.run = p.run AND m.point = p.point AND m.level = p.level
        WHERE p.run = ? ORDER BY p.point, p.level`
    ),
    RUN_POINT_COLUMNS,
    run
  ), POINT_WIDTH)
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
    const reads = rows[at + 2]!
    const writes = rows[at + 3]!
    const readMisses = rows[at + 4]!
    const writeMisses = rows[at + 5]!
    const temporalHits = orNull(rows[at + 6]!)
    if (level === 0) {
      ref.reads = reads
      ref.writes = writes
    }
    const name = names[level] ?? `L${level + 1}`
    const accesses = reads + writes
    const misses = readMisses + writeMisses
    const stats: ReferenceLevelStats = { hits: accesses - misses, misses, readMisses, writeMisses }
    if (temporalHits !== null && level < nCaches) {
      const usedBytes = rows[at + 8]!
      const lineEnds = rows[at + 9]!
      stats.temporalHits = temporalHits
      stats.spatialHits = rows[at + 7]!
      stats.usedBytes = usedBytes
      stats.lineEnds = lineEnds
      stats.spatialReuse = spatialReuse(usedBytes, lineEnds, lines[level] ?? 1)
    }
    ref.levels[name] = stats
  }
  // Evictors: per evictee reference, who evicted its lines, with the fraction of its evictions.
  const evRows = kept?.evictors ?? flatRows(allTuples(db.prepare('SELECT level, evictee, evictor, count FROM run_evictors WHERE run = ? ORDER BY level, count DESC, evictor'), EVICTOR_COLUMNS, run), EVICTOR_WIDTH)
  // Per level, per evictee: all its evictions (numbers as keys, no text key per row).
  const evictedTotal = new Map<number, Map<number, number>>()
  for (let at = 0; at < evRows.length; at += EVICTOR_WIDTH) {
    const level = evRows[at]!
    const evictee = evRows[at + 1]!
    let totals = evictedTotal.get(level)
    if (!totals) evictedTotal.set(level, (totals = new Map()))
    totals.set(evictee, (totals.get(evictee) ?? 0) + evRows[at + 3]!)
  }
  const withEvictors = rows.length > 0 && extras.size > 0
  if (withEvictors) for (const ref of refs.values()) ref.evictors = []
  for (let at = 0; at < evRows.length; at += EVICTOR_WIDTH) {
    const level = evRows[at]!
    const evictee = evRows[at + 1]!
    const ref = refs.get(evictee)
    if (!ref) continue
    const count = evRows[at + 3]!
    ;(ref.evictors ??= []).push({ level: names[level] ?? `L${level + 1}`, by: ownerName(points, evRows[at + 2]!), count, fraction: count / evictedTotal.get(level)!.get(evictee)! })
  }
  for (const [point, touches] of statics.touches(db)) {
    const ref = refs.get(point)
    if (ref && touches.length > 1) ref.touches = touches
  }
  const references = [...refs.values()]
  const report: RunReport = { run, config, levels, lines: groupLines(references, names, lines), references }
  if (extras.size > 0) report.timelines = readTimelines(db, run, names)
  const variables = statics.variables(db)
  if (variables.length > 0) report.variables = variables
  const loops = statics.loops(db)
  if (loops.length > 0) report.loops = loops
  const key = statics.reportKey(db)
  if (key !== null) report.staticsKey = key
  return report
}

function readTimelines(db: Db, run: RunId, names: string[]): MissTimeline[] {
  const interval = oneRow(db.prepare('SELECT timeline_interval AS n FROM runs WHERE run = ?'), { n: 'number?' }, run).n
  if (!interval) return []
  const cells = allRows(db.prepare('SELECT level, variable, interval, misses FROM run_timeline WHERE run = ? ORDER BY level, variable, interval'), { level: 'number', variable: 'text', interval: 'number', misses: 'number' }, run)
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


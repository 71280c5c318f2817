/**
 * A run's figures per (point, data structure, level) as the simulator counted them access by
 * access (`run_touches`, schema v13; simulate/touch-hierarchy.ts). Only points that touched
 * more than one data structure have rows: a point on one structure has its run_points row.
 * Every roll-up by data structure (report, Compare, slices, the data-structure ranking) reads
 * these, so one reference's misses are divided among its structures as they happened.
 */
import { STAT_EVICTIONS, STAT_FIELDS, STAT_LINE_ENDS, STAT_READ_MISSES, STAT_READS, STAT_SPATIAL_HITS, STAT_TEMPORAL_HITS, STAT_USED_BYTES, STAT_WRITE_MISSES, STAT_WRITES } from '../simulate/hierarchy'
import type { TouchResults } from '../simulate/touch-hierarchy'
import { BatchInsert } from './batch-insert'
import type { Db } from './open-db'
import { allTuples } from './rows'

/** Numbers per row: point, variable id, level, then the nine STAT_* counts in order. */
export const TOUCH_WIDTH = 3 + STAT_FIELDS

const STAT_COLUMNS = ['reads', 'writes', 'read_misses', 'write_misses', 'temporal_hits', 'spatial_hits', 'used_bytes', 'line_ends', 'evictions'] as const

/** The rows a run keeps: the touches of points with several, ordered by point, level, variable id. */
export function touchRowsOf(t: TouchResults, levels: number): Float64Array {
  const perPoint = new Map<number, number[]>()
  for (let k = 0; k < t.count; k++) {
    const p = t.points[k]!
    const list = perPoint.get(p)
    if (list) list.push(k)
    else perPoint.set(p, [k])
  }
  const rows: number[] = []
  for (const p of [...perPoint.keys()].sort((a, b) => a - b)) {
    const list = perPoint.get(p)!
    if (list.length < 2) continue
    list.sort((a, b) => t.variables[a]! - t.variables[b]!)
    for (let l = 0; l < levels; l++)
      for (const k of list) {
        const at = (k * levels + l) * STAT_FIELDS
        rows.push(p, t.variables[k]!, l)
        for (let f = 0; f < STAT_FIELDS; f++) rows.push(t.stats[at + f]!)
      }
  }
  return Float64Array.from(rows)
}

/** Inside the caller's transaction. */
export function writeRunTouches(db: Db, run: number, rows: Float64Array): void {
  const insert = new BatchInsert(db, 'run_touches', ['run', 'point', 'variable', 'level', ...STAT_COLUMNS])
  for (let at = 0; at < rows.length; at += TOUCH_WIDTH) insert.add(run, ...Array.from(rows.subarray(at, at + TOUCH_WIDTH)))
  insert.finish()
}

/** The run's rows (touchRowsOf's order), or null for a run without them (older sessions, traces without the column). */
export function readRunTouches(db: Db, run: number): Float64Array | null {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_touches'").get()
  if (!has) return null
  const rows = allTuples(
    db.prepare(`SELECT point, variable, level, ${STAT_COLUMNS.join(', ')} FROM run_touches WHERE run = ? ORDER BY point, level, variable`),
    [['point', 'number'], ['variable', 'number'], ['level', 'number'], ...STAT_COLUMNS.map((c) => [c, 'number'] as const)],
    run
  )
  if (rows.length === 0) {
    // A run of such a session with no point on two structures still counted exactly.
    const exact = db.prepare('SELECT 1 FROM runs WHERE run = ? AND EXISTS (SELECT 1 FROM chunk_variables)').get(run)
    return exact ? new Float64Array(0) : null
  }
  const out = new Float64Array(rows.length * TOUCH_WIDTH)
  rows.forEach((r, i) => out.set(r as unknown as number[], i * TOUCH_WIDTH))
  return out
}

/** One data structure's share of a point's row at a level, as counted. */
export interface ExactPart {
  variable: string
  reads: number
  writes: number
  readMisses: number
  writeMisses: number
  temporalHits: number
  spatialHits: number
  usedBytes: number
  lineEnds: number
  evictions: number
}

/** Per point, per level: its parts by data structure name (two structures of one name count as one, where the first was). */
export type ExactSplits = Map<number, Map<number, ExactPart[]>>

export function exactSplits(rows: Float64Array, nameOf: (variable: number) => string): ExactSplits {
  const out: ExactSplits = new Map()
  for (let at = 0; at < rows.length; at += TOUCH_WIDTH) {
    const point = rows[at]!
    const level = rows[at + 2]!
    let byLevel = out.get(point)
    if (!byLevel) out.set(point, (byLevel = new Map()))
    let parts = byLevel.get(level)
    if (!parts) byLevel.set(level, (parts = []))
    const s = at + 3
    const part: ExactPart = {
      variable: nameOf(rows[at + 1]!),
      reads: rows[s + STAT_READS]!,
      writes: rows[s + STAT_WRITES]!,
      readMisses: rows[s + STAT_READ_MISSES]!,
      writeMisses: rows[s + STAT_WRITE_MISSES]!,
      temporalHits: rows[s + STAT_TEMPORAL_HITS]!,
      spatialHits: rows[s + STAT_SPATIAL_HITS]!,
      usedBytes: rows[s + STAT_USED_BYTES]!,
      lineEnds: rows[s + STAT_LINE_ENDS]!,
      evictions: rows[s + STAT_EVICTIONS]!
    }
    const same = parts.find((p) => p.variable === part.variable)
    if (!same) {
      parts.push(part)
      continue
    }
    for (const k of ['reads', 'writes', 'readMisses', 'writeMisses', 'temporalHits', 'spatialHits', 'usedBytes', 'lineEnds', 'evictions'] as const) same[k] += part[k]
  }
  return out
}

/** Data structure names by id, as the session stores them ('unknown' for id 0 and any id it lacks). */
export function variableNames(db: Db): (variable: number) => string {
  const names = new Map(allTuples(db.prepare('SELECT id, name FROM variables'), [['id', 'number'], ['name', 'text']] as const))
  return (v) => names.get(v) ?? 'unknown'
}

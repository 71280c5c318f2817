/**
 * Per-line figures for one source file of a run, derived from the report the backend
 * computed. Nothing is simulated here: we only regroup and divide.
 */
import type { RunReport } from '../../shared/domain'

/** What one cache level saw for one line. */
export interface LevelCounts {
  name: string
  /** Accesses that reached this level: all reads+writes at L1, the previous level's misses below it. */
  accesses: number
  hits: number
  misses: number
  readMisses: number
  writeMisses: number
  /** Local miss ratio (misses / accesses reaching this level), null when nothing reached it. */
  ratio: number | null
}

export interface LineMetric {
  file: string
  line: number
  function: string | null
  reads: number
  writes: number
  levels: LevelCounts[]
}

export function computeLineMetrics(report: RunReport, file: string): Map<number, LineMetric> {
  const levelNames = report.levels.map((l) => l.name)
  const out = new Map<number, LineMetric>()
  for (const l of report.lines) {
    if (l.file !== file) continue
    let reaching = l.reads + l.writes
    const levels: LevelCounts[] = []
    for (const name of levelNames) {
      const s = l.levels[name] ?? { readMisses: 0, writeMisses: 0 }
      const misses = s.readMisses + s.writeMisses
      levels.push({
        name,
        accesses: reaching,
        hits: Math.max(0, reaching - misses),
        misses,
        readMisses: s.readMisses,
        writeMisses: s.writeMisses,
        ratio: reaching > 0 ? Math.min(1, misses / reaching) : null
      })
      reaching = misses
    }
    out.set(l.line, { file: l.file, line: l.line, function: l.function, reads: l.reads, writes: l.writes, levels })
  }
  return out
}

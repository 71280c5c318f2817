/**
 * What a source line can be painted by (METRIC section 8's per-reference metrics rolled up to
 * lines, plus the diff against a baseline), and each metric's per-line values for one file.
 * Painting means "look here": metrics where high is good (spatial reuse) are painted by their
 * shortfall, and the legend says so.
 */
import type { ReferenceStats, RunReport } from '../../shared/domain'
import { computeLineMetrics } from './line-metrics'

export type HeatMetric = 'misses' | 'ratio' | 'spatialWaste' | 'temporalShare' | 'irregularity' | 'evictionsCaused' | 'delta'

export interface HeatMetricInfo {
  id: HeatMetric
  /** Short label in the "Paint by" control. */
  label: string
  /** What the legend says the color means. */
  legend: string
  /** Values are fractions 0..1 (formatted as percentages) rather than counts. */
  fraction: boolean
  /** Needs a baseline run (the diff paint). */
  needsBaseline?: boolean
}

export const HEAT_METRICS: HeatMetricInfo[] = [
  { id: 'misses', label: 'Misses', legend: 'misses', fraction: false },
  { id: 'ratio', label: 'Miss ratio', legend: 'miss ratio', fraction: true },
  { id: 'spatialWaste', label: 'Spatial reuse', legend: 'unused bytes of fetched lines (1 − spatial reuse)', fraction: true },
  { id: 'temporalShare', label: 'Temporal', legend: 'temporal share of hits', fraction: true },
  { id: 'irregularity', label: 'Regularity', legend: 'irregular share of accesses (1 − regularity)', fraction: true },
  { id: 'evictionsCaused', label: 'Evictions caused', legend: 'lines of other references evicted', fraction: false },
  { id: 'delta', label: 'Δ misses', legend: 'Δ misses vs baseline (green: fewer)', fraction: false, needsBaseline: true }
]

export function heatMetricInfo(id: HeatMetric): HeatMetricInfo {
  return HEAT_METRICS.find((m) => m.id === id) ?? HEAT_METRICS[0]!
}

/** A file's references grouped by line (hover cards and per-line roll-ups). */
export function computeReferencesByLine(report: RunReport, file: string): Map<number, ReferenceStats[]> {
  const by = new Map<number, ReferenceStats[]>()
  for (const r of report.references) {
    if (r.file !== file || r.line === null) continue
    const list = by.get(r.line)
    if (list) list.push(r)
    else by.set(r.line, [r])
  }
  return by
}

/** Evictions each reference caused at a level (from the evictees' evictor lists). */
function evictionsCausedBy(report: RunReport, level: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of report.references) for (const e of r.evictors ?? []) if (e.level === level) out.set(e.by, (out.get(e.by) ?? 0) + e.count)
  return out
}

/**
 * Per-line values of a metric in one file, at one level. Lines where the metric is undefined
 * (no hits for a temporal share, no stream data) are left out rather than painted as zero.
 * `deltas` (from the run diff) is required for 'delta'.
 */
export function computeLineValues(report: RunReport, file: string, level: string, metric: HeatMetric, deltas?: Map<number, number>): Map<number, number> {
  const out = new Map<number, number>()
  if (metric === 'delta') {
    for (const [line, d] of deltas ?? []) out.set(line, d)
    return out
  }
  if (metric === 'misses' || metric === 'ratio') {
    for (const [line, m] of computeLineMetrics(report, file)) {
      const lv = m.levels.find((l) => l.name === level)
      if (lv) out.set(line, metric === 'misses' ? lv.misses : (lv.ratio ?? 0))
    }
    return out
  }
  const caused = metric === 'evictionsCaused' ? evictionsCausedBy(report, level) : null
  for (const [line, refs] of computeReferencesByLine(report, file)) {
    let num = 0
    let den = 0
    for (const r of refs) {
      const s = r.levels[level]
      if (metric === 'spatialWaste') {
        // Byte-weighted over the lines the references brought in, as METRIC defines it.
        const lineSize = report.config.levels.find((l) => l.name === level)?.lineSize
        if (s?.usedBytes === undefined || !s.lineEnds || !lineSize) continue
        num += s.lineEnds * lineSize - s.usedBytes
        den += s.lineEnds * lineSize
      } else if (metric === 'temporalShare') {
        if (s?.temporalHits === undefined || s.spatialHits === undefined) continue
        num += s.temporalHits
        den += s.temporalHits + s.spatialHits
      } else if (metric === 'irregularity') {
        const reg = r.streams?.regularity
        if (reg === undefined || reg === null) continue
        const n = r.reads + r.writes
        num += (1 - reg) * n
        den += n
      } else {
        num += caused!.get(r.id) ?? 0
        den = 1
      }
    }
    if (den > 0) out.set(line, metric === 'evictionsCaused' ? num : num / den)
  }
  return out
}

/**
 * The Timeline view's data: a run's stored miss timeline at one level (misses per data
 * structure per fixed interval of accesses, Buck section 3.5) as the series a stacked chart
 * draws: the structures with most misses each their own band (by the name the program uses,
 * `logic/data-names.ts`), the rest summed as one "other" band so the stack's top is the
 * level's whole timeline. Pure.
 */
import type { RunReport } from '../../shared/domain'
import type { DataName } from './data-names'

export interface TimelineSeries {
  /** The stored name (`heap@lz4frame.c:123`), or null for the "other" band. */
  variable: string | null
  label: string
  values: number[]
  total: number
  /** Interval with most misses (first of equals). */
  peak: number
}

export interface TimelineModel {
  level: string
  /** Accesses per interval. */
  interval: number
  /** Number of intervals. */
  count: number
  /** Bands, most misses first; "other" last. */
  series: TimelineSeries[]
  /** Structures in the stored timeline (with or without a band of their own). */
  structures: number
  /** Largest stacked total of one interval. */
  max: number
}

export const TIMELINE_BANDS = 8

function seriesOf(variable: string | null, label: string, values: number[]): TimelineSeries {
  let total = 0
  let peak = 0
  for (let i = 0; i < values.length; i++) {
    total += values[i]!
    if (values[i]! > values[peak]!) peak = i
  }
  return { variable, label, values, total, peak }
}

/** Null when the run keeps no timeline at `level`. */
export function computeTimeline(report: RunReport, level: string, names: ReadonlyMap<string, DataName>, bands = TIMELINE_BANDS): TimelineModel | null {
  const t = report.timelines?.find((x) => x.level === level)
  if (!t) return null
  const entries = Object.entries(t.series)
  const count = entries.reduce((m, [, v]) => Math.max(m, v.length), 0)
  if (count === 0) return null
  const all = entries
    .map(([variable, values]) => seriesOf(variable, names.get(variable)?.label ?? variable, Array.from({ length: count }, (_, i) => values[i] ?? 0)))
    .filter((s) => s.total > 0)
    .sort((a, b) => b.total - a.total || a.variable!.localeCompare(b.variable!))
  const shown = all.length > bands ? all.slice(0, bands - 1) : all
  const rest = all.slice(shown.length)
  const series = [...shown]
  if (rest.length > 0) {
    const values = new Array<number>(count).fill(0)
    for (const s of rest) for (let i = 0; i < count; i++) values[i]! += s.values[i]!
    series.push(seriesOf(null, `${rest.length} other${rest.length > 1 ? 's' : ''}`, values))
  }
  let max = 0
  for (let i = 0; i < count; i++) {
    let sum = 0
    for (const s of series) sum += s.values[i]!
    if (sum > max) max = sum
  }
  return { level, interval: t.interval, count, series, structures: all.length, max }
}

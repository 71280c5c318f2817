/**
 * Heat buckets for painting: a handful of perceptual steps (ColorBrewer YlOrRd, see
 * styles/heat.css) read more reliably than a continuous ramp, and the gutter bar
 * carries the exact proportion. Counts (misses, evictions, Δ misses) span orders of
 * magnitude, so their steps are logarithmic: a 20,000-miss line and a 1-miss line never share
 * a color. Fractions (ratios, shares) stay linear. The legend prints every step's bounds.
 */
export const HEAT_STEPS = 5
/** Gutter bar widths are quantized to this many steps (CSS classes bar-w0..bar-w20). */
export const BAR_STEPS = 20

export interface LineHeat {
  /** 0 = nothing to show, 1..HEAT_STEPS = coolest..hottest (of |value| for signed maps). */
  bucket: number
  /** 0..BAR_STEPS, proportional to |value| / max. */
  bar: number
  value: number
  /** Signed maps (diffs): -1 improvement, +1 regression, 0 unchanged. Unsigned maps: 1 or 0. */
  sign: -1 | 0 | 1
}

export interface HeatMap {
  lines: Map<number, LineHeat>
  /** Largest |value|. */
  max: number
  /** Line with the largest |value| (first such line), or null if every value is zero. */
  hottest: number | null
  /** Lines with a nonzero value, hottest first (ties by line): the "next hottest" order. */
  order: number[]
  signed: boolean
  scale: HeatScale
}

export type HeatScale = 'log' | 'linear'

/** Where |value| falls between 0 and max, 0..1, on the scale. */
function position(a: number, max: number, scale: HeatScale): number {
  return scale === 'log' ? Math.log1p(a) / Math.log1p(max) : a / max
}

/** Buckets for painting. Signed maps (Δ misses) paint both directions by magnitude. */
export function computeHeat(values: Map<number, number>, signed = false, scale: HeatScale = 'linear'): HeatMap {
  const entries = [...values].sort((a, b) => a[0] - b[0])
  let max = 0
  let hottest: number | null = null
  for (const [line, v] of entries) {
    const a = signed ? Math.abs(v) : v
    if (a > max) {
      max = a
      hottest = line
    }
  }
  const lines = new Map<number, LineHeat>()
  for (const [line, value] of entries) {
    const a = signed ? Math.abs(value) : value
    if (max <= 0 || a <= 0) {
      lines.set(line, { bucket: 0, bar: 0, value, sign: 0 })
      continue
    }
    lines.set(line, {
      bucket: Math.min(HEAT_STEPS, Math.max(1, Math.ceil(position(a, max, scale) * HEAT_STEPS))),
      // The bar stays proportional: it carries the exact share the log colors compress.
      bar: Math.max(1, Math.round((a / max) * BAR_STEPS)),
      value,
      sign: value < 0 ? -1 : 1
    })
  }
  const order = entries
    .filter(([, v]) => (signed ? v !== 0 : v > 0))
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0] - b[0])
    .map(([line]) => line)
  return { lines, max, hottest, order, signed, scale }
}

/** The line to jump to from `current` going down (+1) or up (-1) the hotness order, wrapping. */
export function nextHotLine(heat: HeatMap, current: number | null, direction: 1 | -1): number | null {
  if (heat.order.length === 0) return null
  const at = current === null ? -1 : heat.order.indexOf(current)
  if (at < 0) return direction === 1 ? heat.order[0]! : heat.order[heat.order.length - 1]!
  return heat.order[(at + direction + heat.order.length) % heat.order.length]!
}

/** Each bucket's value range [from, to], for the legend (from of bucket 1 is just above 0). */
export function bucketBounds(max: number, scale: HeatScale): Array<{ from: number; to: number }> {
  const at = (f: number) => (scale === 'log' ? Math.expm1(f * Math.log1p(max)) : f * max)
  return Array.from({ length: HEAT_STEPS }, (_, i) => ({ from: at(i / HEAT_STEPS), to: at((i + 1) / HEAT_STEPS) }))
}

/**
 * The whole counts a step holds: those in (from, to], the painter's ceil rule. With a small
 * maximum some steps hold none (max 3 in log steps: the first two are empty, then 1, 2, 3).
 */
export function countsInStep(b: { from: number; to: number }): { lo: number; hi: number } | null {
  const lo = Math.max(1, Math.floor(b.from + 1e-9) + 1)
  const hi = Math.floor(b.to + 1e-9)
  return lo <= hi ? { lo, hi } : null
}

/** A run of consecutive lines with the same color, for the overview ruler and minimap marks. */
export interface HeatRun {
  start: number
  end: number
  bucket: number
  sign: -1 | 0 | 1
}

/**
 * Consecutive painted lines with the same bucket and direction merged into runs: the ruler
 * and minimap show the whole file, and a few runs cost far less to draw than a mark per line.
 */
export function computeHeatRuns(heat: HeatMap): HeatRun[] {
  const runs: HeatRun[] = []
  for (const [line, h] of [...heat.lines].sort((a, b) => a[0] - b[0])) {
    if (h.bucket === 0) continue
    const last = runs[runs.length - 1]
    if (last && last.end === line - 1 && last.bucket === h.bucket && last.sign === h.sign) last.end = line
    else runs.push({ start: line, end: line, bucket: h.bucket, sign: h.sign })
  }
  return runs
}

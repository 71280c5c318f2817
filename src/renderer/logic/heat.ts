/**
 * Heat buckets for painting: a handful of perceptual steps (ColorBrewer YlOrRd, see
 * styles/heat.css) read more reliably than a continuous ramp, and the gutter bar
 * carries the exact proportion.
 */
export const HEAT_STEPS = 5
/** Gutter bar widths are quantized to this many steps (CSS classes bar-w0..bar-w20). */
export const BAR_STEPS = 20

export interface LineHeat {
  /** 0 = nothing to show, 1..HEAT_STEPS = coolest..hottest. */
  bucket: number
  /** 0..BAR_STEPS, proportional to value / max. */
  bar: number
  value: number
}

export interface HeatMap {
  lines: Map<number, LineHeat>
  max: number
  /** Line with the largest value (first such line), or null if every value is zero. */
  hottest: number | null
}

export function computeHeat(values: Map<number, number>): HeatMap {
  let max = 0
  let hottest: number | null = null
  for (const [line, v] of [...values].sort((a, b) => a[0] - b[0])) {
    if (v > max) {
      max = v
      hottest = line
    }
  }
  const lines = new Map<number, LineHeat>()
  for (const [line, value] of values) {
    if (max <= 0 || value <= 0) {
      lines.set(line, { bucket: 0, bar: 0, value })
      continue
    }
    const f = value / max
    lines.set(line, {
      bucket: Math.min(HEAT_STEPS, Math.max(1, Math.ceil(f * HEAT_STEPS))),
      bar: Math.max(1, Math.round(f * BAR_STEPS)),
      value
    })
  }
  return { lines, max, hottest }
}

/** Lower bound of each bucket as a fraction of the max, for the legend. */
export function bucketLowerBounds(): number[] {
  return Array.from({ length: HEAT_STEPS }, (_, i) => i / HEAT_STEPS)
}

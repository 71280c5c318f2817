/**
 * Legend for the heat colors: what each step means for the current metric and level, with
 * every step's bounds printed (log steps for counts, linear for fractions). Nothing to paint
 * is said in words, not drawn as a degenerate scale.
 */
import { bucketBounds, countsInStep, type HeatScale } from '../logic/heat'
import { formatCompact, formatPercent } from '../logic/format'
import type { HeatMetricInfo } from '../logic/heat-metrics'

interface Props {
  max: number
  metric: HeatMetricInfo
  level: string
  scale: HeatScale
  /** A diff: green steps for fewer misses, red for more. */
  signed?: boolean
  /** Lines left unpainted as noise (a single access), said so the user can show them. */
  hiddenNoise?: number
}

export function HeatLegend({ max, metric, level, scale, signed = false, hiddenNoise = 0 }: Props) {
  const fmt = (v: number) => (metric.fraction ? formatPercent(v) : formatCompact(Math.round(v)))
  const bounds = bucketBounds(max, scale)
  const noise = hiddenNoise > 0 ? <span className="muted small" data-testid="heat-noise">{hiddenNoise} single-access line{hiddenNoise === 1 ? '' : 's'} not painted</span> : null
  if (!(max > 0))
    return (
      <div className="heat-legend" aria-label="Heat legend" data-testid="heat-legend">
        <span className="muted">
          {level} {metric.legend}: nothing to paint in this file
        </span>
        {noise}
      </div>
    )
  const label = (b: { from: number; to: number }, i: number) => {
    if (metric.fraction) return `${i === 0 ? '>0' : fmt(b.from)}–${fmt(b.to)}`
    const counts = countsInStep(b)
    if (!counts) return '–' // no whole count falls in this step
    return counts.lo === counts.hi ? fmt(counts.lo) : `${fmt(counts.lo)}–${fmt(counts.hi)}`
  }
  return (
    <div className="heat-legend" aria-label="Heat legend" data-testid="heat-legend">
      <span className="muted">
        {level} {metric.legend}
        {scale === 'log' ? ' (log steps)' : ''}
      </span>
      <span className="heat-legend-scale">
        {signed &&
          [...bounds].reverse().map((b, r) => {
            const i = bounds.length - 1 - r
            return <span key={`b${i}`} className={`swatch diff-better-${i + 1}`} title={`fewer misses: ${label(b, i)}`} />
          })}
        {bounds.map((b, i) => (
          <span key={i} className="heat-step">
            <span className={`swatch ${signed ? `diff-worse-${i + 1}` : `heat-bg-${i + 1}`}`} title={`${signed ? 'more misses: ' : ''}${label(b, i)}`} />
            <span className="heat-step-label small">{label(b, i)}</span>
          </span>
        ))}
      </span>
      {noise}
    </div>
  )
}

/** Legend for the heat colors: what each step means for the current metric and level. */
import { HEAT_STEPS } from '../logic/heat'
import { formatCompact, formatPercent } from '../logic/format'
import type { HeatMetricInfo } from '../logic/heat-metrics'

interface Props {
  max: number
  metric: HeatMetricInfo
  level: string
  /** A diff: green steps for fewer misses, red for more. */
  signed?: boolean
}

export function HeatLegend({ max, metric, level, signed = false }: Props) {
  const fmt = (v: number) => (metric.fraction ? formatPercent(v) : formatCompact(v))
  const steps = Array.from({ length: HEAT_STEPS }, (_, i) => i)
  return (
    <div className="heat-legend" aria-label="Heat legend" data-testid="heat-legend">
      <span className="muted">
        {level} {metric.legend}
      </span>
      <span className="heat-legend-scale">
        {signed &&
          [...steps].reverse().map((i) => <span key={`b${i}`} className={`swatch diff-better-${i + 1}`} title={`fewer misses: ${fmt((max * i) / HEAT_STEPS)} – ${fmt((max * (i + 1)) / HEAT_STEPS)}`} />)}
        {steps.map((i) => (
          <span
            key={i}
            className={`swatch ${signed ? `diff-worse-${i + 1}` : `heat-bg-${i + 1}`}`}
            title={`${signed ? 'more misses: ' : ''}${fmt((max * i) / HEAT_STEPS)} – ${fmt((max * (i + 1)) / HEAT_STEPS)}`}
          />
        ))}
      </span>
      <span className="muted">{signed ? `±${fmt(max)}` : `0 – ${fmt(max)}`}</span>
    </div>
  )
}

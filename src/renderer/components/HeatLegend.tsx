/** Legend for the heat colors: what each step means for the current metric and level. */
import { HEAT_STEPS } from '../logic/heat'
import { formatCompact, formatPercent } from '../logic/format'
import type { HeatMetric } from '../logic/line-metrics'

export function HeatLegend({ max, metric, level }: { max: number; metric: HeatMetric; level: string }) {
  const fmt = (v: number) => (metric === 'ratio' ? formatPercent(v) : formatCompact(v))
  return (
    <div className="heat-legend" aria-label="Heat legend">
      <span className="muted">{level} {metric === 'ratio' ? 'miss ratio' : 'misses'}</span>
      <span className="heat-legend-scale">
        {Array.from({ length: HEAT_STEPS }, (_, i) => (
          <span key={i} className={`swatch heat-bg-${i + 1}`} title={`${fmt((max * i) / HEAT_STEPS)} – ${fmt((max * (i + 1)) / HEAT_STEPS)}`} />
        ))}
      </span>
      <span className="muted">0 – {fmt(max)}</span>
    </div>
  )
}

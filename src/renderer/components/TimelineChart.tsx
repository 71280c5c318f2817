/**
 * A miss timeline as a stacked area chart (d3 scales and shapes; React renders the elements):
 * x is the trace's accesses, y the misses per interval, one band per data structure. Hovering
 * a point of the x axis shows that interval's figures. Presentational: the model comes in props.
 */
import { max as d3max } from 'd3-array'
import { scaleLinear, scaleOrdinal } from 'd3-scale'
import { schemeTableau10 } from 'd3-scale-chromatic'
import { area, stack } from 'd3-shape'
import { useMemo, useState, type Ref } from 'react'
import { formatCompact, formatCount } from '../logic/format'
import type { TimelineModel } from '../logic/timeline'

interface Props {
  model: TimelineModel
  width: number
  height: number
  svgRef?: Ref<SVGSVGElement>
}

const FONT = 12
const OTHER = '#9aa0a6'

export function TimelineChart({ model, width, height, svgRef }: Props) {
  const [at, setAt] = useState<number | null>(null)
  const left = 64
  const right = 36
  const top = 12
  const bottom = 36
  const color = scaleOrdinal<string, string>().domain(model.series.map((s) => s.label)).range(schemeTableau10)
  const x = scaleLinear().domain([0, model.count]).range([left, width - right])
  const y = scaleLinear().domain([0, Math.max(1, model.max)]).range([height - bottom, top]).nice()
  const layers = useMemo(() => {
    const rows = Array.from({ length: model.count }, (_, i) => model.series.map((s) => s.values[i]!))
    return stack<number[], number>().keys(model.series.map((_, k) => k)).value((row, k) => row[k]!)(rows)
  }, [model])
  // Each interval drawn as a step over its width (an interval's misses are a count over it, not a point).
  const shape = area<[number, number] & { data: number[] }>()
    .x((_, i) => x(i + 0.5))
    .y0((d) => y(d[0]))
    .y1((d) => y(d[1]))
  const xTicks = x.ticks(Math.min(8, model.count))
  const unit = model.interval * model.count >= 2e6 ? 1e6 : 1e3
  const unitName = unit === 1e6 ? 'M' : 'K'
  return (
    <div className="timeline-chart">
      <svg
        ref={svgRef}
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${model.level} misses over time by data structure`}
        data-testid="timeline-chart"
        data-intervals={model.count}
        onMouseMove={(e) => {
          const box = e.currentTarget.getBoundingClientRect()
          const i = Math.floor(x.invert(((e.clientX - box.left) * width) / box.width))
          setAt(i >= 0 && i < model.count ? i : null)
        }}
        onMouseLeave={() => setAt(null)}
      >
        {y.ticks(5).map((t) => (
          <g key={t}>
            <line x1={left} x2={width - right} y1={y(t)} y2={y(t)} className="chart-grid" />
            <text x={left - 6} y={y(t)} textAnchor="end" dominantBaseline="middle" fontSize={FONT - 1} className="chart-label">
              {formatCompact(t)}
            </text>
          </g>
        ))}
        {layers.map((layer, k) => (
          <path key={model.series[k]!.label} d={shape(layer as never) ?? ''} fill={model.series[k]!.variable === null ? OTHER : color(model.series[k]!.label)} fillOpacity={0.85} data-series={model.series[k]!.variable ?? 'other'}>
            <title>{`${model.series[k]!.label}: ${formatCount(model.series[k]!.total)} misses`}</title>
          </path>
        ))}
        {xTicks.map((t, i) => (
          <text key={t} x={x(t)} y={height - bottom + 16} textAnchor={i === xTicks.length - 1 && x(t) > width - right - 20 ? 'end' : 'middle'} fontSize={FONT - 1} className="chart-label">
            {((t * model.interval) / unit).toLocaleString('en-US', { maximumFractionDigits: 1 })}
            {unitName}
          </text>
        ))}
        <text x={(left + width - right) / 2} y={height - 4} textAnchor="middle" fontSize={FONT - 1} className="chart-label">
          accesses into the trace ({formatCount(model.interval)} per step)
        </text>
        <text x={14} y={(top + height - bottom) / 2} textAnchor="middle" fontSize={FONT - 1} className="chart-label" transform={`rotate(-90 14 ${(top + height - bottom) / 2})`}>
          {model.level} misses per step
        </text>
        {at !== null && <line x1={x(at + 0.5)} x2={x(at + 0.5)} y1={top} y2={height - bottom} className="chart-cursor" />}
      </svg>
      <ul className="timeline-legend" aria-label="Data structures" data-testid="timeline-legend">
        {model.series.map((s) => (
          <li key={s.label} data-series={s.variable ?? 'other'} title={s.variable && s.variable !== s.label ? s.variable : undefined}>
            <span className="swatch" style={{ background: s.variable === null ? OTHER : color(s.label) }} aria-hidden="true" />
            <span className="timeline-legend-name">{s.label}</span>
            <span className="muted">{at !== null ? formatCount(s.values[at]!) : formatCount(s.total)}</span>
          </li>
        ))}
        <li className="muted small">{at !== null ? `step ${at + 1} of ${model.count}, from access ${formatCount(at * model.interval)}` : `total of ${model.count} steps; peak ${formatCount(d3max(model.series, (s) => s.values[s.peak]) ?? 0)}`}</li>
      </ul>
    </div>
  )
}

/**
 * A query slice drawn as SVG with d3 (scales, shapes, bins; React renders the elements):
 * heatmap matrix data x code, bar chart per cell, histogram of the cell values, pie of the
 * data structures' shares. Presentational: the slice and the chosen metric come in props.
 */
import { bin, extent, max } from 'd3-array'
import { scaleBand, scaleLinear, scaleOrdinal, scaleSequential } from 'd3-scale'
import { interpolateYlOrRd, schemeTableau10 } from 'd3-scale-chromatic'
import { arc, pie, type PieArcDatum } from 'd3-shape'
import type { Ref } from 'react'
import type { QuerySlice } from '../../shared/domain'
import { computeSliceBars, computeSliceShares, formatSliceValue, type SliceBar } from '../logic/query-slice'

export type SliceChartKind = 'heatmap' | 'bar' | 'histogram' | 'pie'

interface Props {
  slice: QuerySlice
  kind: SliceChartKind
  metric: number
  svgRef?: Ref<SVGSVGElement>
}

const WIDTH = 760
const FONT = 12

/** Readable text on a heat color: dark on light cells, light on dark ones. */
const inkOn = (t: number) => (t > 0.6 ? '#ffffff' : '#1d2025')

function Heatmap({ slice, metric, svgRef }: Omit<Props, 'kind'>) {
  const ratio = slice.derived[metric]!
  const values = slice.cells.flatMap((row) => row.map((c) => c[metric] ?? null))
  const top = ratio ? 1 : Math.max(1, max(values, (v) => v ?? 0) ?? 1)
  const color = scaleSequential(interpolateYlOrRd).domain([0, top])
  const left = Math.min(220, 16 + 7.5 * Math.max(...slice.data.map((d) => d.length), 4))
  const head = 30
  const x = scaleBand<number>().domain(slice.code.map((_, j) => j)).range([left, WIDTH - 90]).padding(0.06)
  const rowH = Math.max(22, Math.min(44, 360 / Math.max(1, slice.data.length)))
  const y = scaleBand<number>().domain(slice.data.map((_, i) => i)).range([head, head + rowH * slice.data.length]).padding(0.06)
  const height = head + rowH * slice.data.length + 16
  const legend = scaleLinear().domain([0, top]).range([head + rowH * slice.data.length, head])
  return (
    <svg ref={svgRef} className="slice-chart" width={WIDTH} height={height} viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`Heatmap of ${slice.metrics[metric]}: data structures by code regions`} data-testid="slice-heatmap">
      {slice.code.map((c, j) => (
        <text key={c} x={x(j)! + x.bandwidth() / 2} y={head - 8} textAnchor="middle" fontSize={FONT} className="chart-label">
          {c}
        </text>
      ))}
      {slice.data.map((d, i) => (
        <g key={d}>
          <text x={left - 8} y={y(i)! + y.bandwidth() / 2} textAnchor="end" dominantBaseline="middle" fontSize={FONT} className="chart-label">
            {d}
          </text>
          {slice.code.map((c, j) => {
            const v = slice.cells[i]![j]![metric] ?? null
            return (
              <g key={c} data-testid="heat-cell" data-value={v ?? ''}>
                <rect x={x(j)} y={y(i)} width={x.bandwidth()} height={y.bandwidth()} fill={v === null ? 'none' : color(v)} stroke="#8888" rx={3}>
                  <title>{`${d} · ${c}: ${formatSliceValue(v, ratio)}`}</title>
                </rect>
                {x.bandwidth() > 36 && (
                  <text x={x(j)! + x.bandwidth() / 2} y={y(i)! + y.bandwidth() / 2} textAnchor="middle" dominantBaseline="middle" fontSize={FONT} fill={v === null ? '#888888' : inkOn(v / top)}>
                    {formatSliceValue(v, ratio)}
                  </text>
                )}
              </g>
            )
          })}
        </g>
      ))}
      {/* Legend: the color scale from 0 to the largest cell. */}
      {Array.from({ length: 24 }, (_, k) => (
        <rect key={k} x={WIDTH - 70} y={legend((top * (k + 1)) / 24)} width={14} height={Math.abs(legend(0) - legend(top / 24)) + 0.5} fill={color((top * (k + 0.5)) / 24)} />
      ))}
      <text x={WIDTH - 50} y={head + 4} fontSize={FONT - 1} className="chart-label" dominantBaseline="hanging">
        {formatSliceValue(top, ratio)}
      </text>
      <text x={WIDTH - 50} y={legend(0)} fontSize={FONT - 1} className="chart-label">
        0
      </text>
    </svg>
  )
}

function Bars({ bars, title, ratio, svgRef, testId }: { bars: SliceBar[]; title: string; ratio: boolean; svgRef?: Ref<SVGSVGElement>; testId: string }) {
  const left = Math.min(260, 16 + 7 * Math.max(4, ...bars.map((b) => b.label.length)))
  const rowH = 26
  const height = 30 + rowH * bars.length + 24
  const x = scaleLinear().domain([0, Math.max(ratio ? 1 : 1, max(bars, (b) => b.value) ?? 1)]).nice().range([left, WIDTH - 80])
  return (
    <svg ref={svgRef} className="slice-chart" width={WIDTH} height={height} viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={title} data-testid={testId}>
      <text x={left} y={16} fontSize={FONT} className="chart-label">
        {title}
      </text>
      {x.ticks(5).map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={26} y2={height - 20} stroke="#8884" />
          <text x={x(t)} y={height - 6} textAnchor="middle" fontSize={FONT - 1} className="chart-label">
            {formatSliceValue(t, ratio)}
          </text>
        </g>
      ))}
      {bars.map((b, i) => (
        <g key={`${b.label}-${i}`} data-testid="slice-bar" data-value={b.value}>
          <text x={left - 8} y={30 + i * rowH + rowH / 2} textAnchor="end" dominantBaseline="middle" fontSize={FONT} className="chart-label">
            {b.label}
          </text>
          <rect x={left} y={30 + i * rowH + 3} width={Math.max(0, x(b.value) - left)} height={rowH - 6} fill="#e0612b" rx={2}>
            <title>{`${b.label}: ${formatSliceValue(b.value, ratio)}`}</title>
          </rect>
          <text x={x(b.value) + 6} y={30 + i * rowH + rowH / 2} dominantBaseline="middle" fontSize={FONT} className="chart-label">
            {formatSliceValue(b.value, ratio)}
          </text>
        </g>
      ))}
    </svg>
  )
}

function Histogram({ slice, metric, svgRef }: Omit<Props, 'kind'>) {
  const ratio = slice.derived[metric]!
  const values = slice.cells.flatMap((row) => row.map((c) => c[metric])).filter((v): v is number => v !== null && v !== undefined)
  const [lo, hi] = extent(values) as [number | undefined, number | undefined]
  const domain: [number, number] = lo === undefined || hi === undefined ? [0, 1] : lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi]
  const x = scaleLinear().domain(domain).nice().range([60, WIDTH - 30])
  const buckets = bin().domain(x.domain() as [number, number]).thresholds(x.ticks(Math.min(20, Math.max(4, values.length))))(values)
  const height = 260
  const y = scaleLinear().domain([0, Math.max(1, max(buckets, (b) => b.length) ?? 1)]).nice().range([height - 30, 30])
  return (
    <svg ref={svgRef} className="slice-chart" width={WIDTH} height={height} viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`Histogram of ${slice.metrics[metric]} over the cells`} data-testid="slice-histogram">
      <text x={60} y={16} fontSize={FONT} className="chart-label">
        {`cells by ${slice.metrics[metric]} (${values.length} cells)`}
      </text>
      {y.ticks(4).map((t) => (
        <g key={t}>
          <line x1={60} x2={WIDTH - 30} y1={y(t)} y2={y(t)} stroke="#8884" />
          <text x={54} y={y(t)} textAnchor="end" dominantBaseline="middle" fontSize={FONT - 1} className="chart-label">
            {t}
          </text>
        </g>
      ))}
      {buckets.map((b, k) => (
        <rect key={k} x={x(b.x0!) + 1} y={y(b.length)} width={Math.max(0, x(b.x1!) - x(b.x0!) - 2)} height={y(0) - y(b.length)} fill="#2f5fd0" data-testid="histogram-bin" data-count={b.length}>
          <title>{`${formatSliceValue(b.x0!, ratio)} – ${formatSliceValue(b.x1!, ratio)}: ${b.length} cells`}</title>
        </rect>
      ))}
      {x.ticks(6).map((t) => (
        <text key={t} x={x(t)} y={height - 12} textAnchor="middle" fontSize={FONT - 1} className="chart-label">
          {formatSliceValue(t, ratio)}
        </text>
      ))}
    </svg>
  )
}

function Pie({ slice, metric, svgRef }: Omit<Props, 'kind'>) {
  const shares = computeSliceShares(slice, metric)
  if (shares === null) return <p className="muted">A pie shows shares of a count; {slice.metrics[metric]} is a ratio. Pick a count metric (misses, loads…) or another display.</p>
  if (shares.length === 0) return <p className="muted">Nothing to share out: every data structure has 0 {slice.metrics[metric]}.</p>
  const total = shares.reduce((a, s) => a + s.value, 0)
  const height = Math.max(280, 40 + shares.length * 22)
  const radius = 120
  const color = scaleOrdinal<string, string>(schemeTableau10).domain(shares.map((s) => s.label))
  const slices = pie<SliceBar>().sort(null).value((s) => s.value)(shares)
  const path = arc<PieArcDatum<SliceBar>>().innerRadius(0).outerRadius(radius)
  return (
    <svg ref={svgRef} className="slice-chart" width={WIDTH} height={height} viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`Pie of ${slice.metrics[metric]} by data structure`} data-testid="slice-pie">
      <g transform={`translate(${radius + 30},${height / 2})`}>
        {slices.map((s) => (
          <path key={s.data.label} d={path(s) ?? undefined} fill={color(s.data.label)} stroke="#ffffff" strokeWidth={1} data-testid="pie-slice">
            <title>{`${s.data.label}: ${formatSliceValue(s.data.value, false)} (${((100 * s.data.value) / total).toFixed(1)}%)`}</title>
          </path>
        ))}
      </g>
      {slices.map((s, k) => (
        <g key={s.data.label} transform={`translate(${2 * radius + 70},${30 + k * 22})`}>
          <rect width={12} height={12} fill={color(s.data.label)} />
          <text x={18} y={10} fontSize={FONT} className="chart-label">
            {`${s.data.label}: ${formatSliceValue(s.data.value, false)} (${((100 * s.data.value) / total).toFixed(1)}%)`}
          </text>
        </g>
      ))}
    </svg>
  )
}

export function SliceChart({ slice, kind, metric, svgRef }: Props) {
  if (slice.data.length === 0 || slice.code.length === 0) return <p className="muted">The selection is empty: nothing in this run matches it.</p>
  switch (kind) {
    case 'heatmap':
      return <Heatmap slice={slice} metric={metric} svgRef={svgRef} />
    case 'bar':
      return <Bars bars={computeSliceBars(slice, metric)} title={`${slice.metrics[metric]} per data structure${slice.code.length > 1 ? ' · code region' : ''}`} ratio={slice.derived[metric]!} svgRef={svgRef} testId="slice-bars" />
    case 'histogram':
      return <Histogram slice={slice} metric={metric} svgRef={svgRef} />
    case 'pie':
      return <Pie slice={slice} metric={metric} svgRef={svgRef} />
  }
}

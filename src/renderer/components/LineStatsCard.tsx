/** A line's figures per cache level: the hover card's content and the selected-line panel. */
import type { ReferenceStats } from '../../shared/domain'
import type { LineMetric } from '../logic/line-metrics'
import { baseName, formatCount, formatPercent } from '../logic/format'

interface Props {
  metric: LineMetric
  /** The references on this line, for cross-reading with the table. */
  references: ReferenceStats[]
  activeLevel: string | null
}

/** "8 (100%)" or "8000 (97%), 8 (3%)": the dominant strides of a reference's streams. */
function strideText(r: ReferenceStats): string {
  const strides = r.streams?.strides ?? []
  if (strides.length === 0) return '—'
  return strides
    .slice(0, 2)
    .map((s) => `${s.stride} (${formatPercent(s.fraction)})`)
    .join(', ')
}

export function LineStatsCard({ metric, references, activeLevel }: Props) {
  return (
    <div className="line-stats">
      <div className="line-stats-head">
        <strong>
          {baseName(metric.file)}:{metric.line}
        </strong>
        {metric.function && <code className="muted">{metric.function}</code>}
      </div>
      <dl className="line-stats-totals">
        <div>
          <dt>Reads</dt>
          <dd data-testid="stat-reads">{formatCount(metric.reads)}</dd>
        </div>
        <div>
          <dt>Writes</dt>
          <dd data-testid="stat-writes">{formatCount(metric.writes)}</dd>
        </div>
      </dl>
      <table className="line-stats-levels">
        <thead>
          <tr>
            <th scope="col">Level</th>
            <th scope="col">Hits</th>
            <th scope="col">Misses</th>
            <th scope="col">R / W misses</th>
            <th scope="col">Miss ratio</th>
          </tr>
        </thead>
        <tbody>
          {metric.levels.map((l) => (
            <tr key={l.name} className={l.name === activeLevel ? 'is-active' : ''} data-level={l.name}>
              <th scope="row">{l.name}</th>
              <td data-testid={`stat-hits-${l.name}`}>{formatCount(l.hits)}</td>
              <td data-testid={`stat-misses-${l.name}`}>{formatCount(l.misses)}</td>
              <td>
                {formatCount(l.readMisses)} / {formatCount(l.writeMisses)}
              </td>
              <td>{formatPercent(l.ratio)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {references.length > 0 && (
        <table className="line-stats-refs" data-testid="line-references">
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">Source</th>
              <th scope="col" title="METRIC: accesses inside regular streams / accesses">Regularity</th>
              <th scope="col">Mean stream</th>
              <th scope="col">Strides (bytes)</th>
            </tr>
          </thead>
          <tbody>
            {references.map((r) => (
              <tr key={r.id}>
                <th scope="row" title={r.disasm ?? undefined}>
                  <code>{r.id}</code>
                </th>
                <td>
                  <code>{r.sourceExpr ?? ''}</code>
                </td>
                <td>{r.streams ? formatPercent(r.streams.regularity) : '—'}</td>
                <td>{r.streams ? formatCount(Math.round(r.streams.meanStreamLength)) : '—'}</td>
                <td>{strideText(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

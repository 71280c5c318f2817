/** A line's figures per cache level: the hover card's content and the selected-line panel. */
import type { LineMetric } from '../logic/line-metrics'
import { baseName, formatCount, formatPercent } from '../logic/format'

interface Props {
  metric: LineMetric
  /** Reference ids on this line, for cross-reading with the table. */
  references: string[]
  activeLevel: string | null
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
        <p className="line-stats-refs muted">
          {references.length === 1 ? 'Reference ' : 'References '}
          {references.map((r, i) => (
            <span key={r}>
              {i > 0 && ', '}
              <code>{r}</code>
            </span>
          ))}
        </p>
      )}
    </div>
  )
}

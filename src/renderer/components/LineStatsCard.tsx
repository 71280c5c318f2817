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
/** The active level's figures of one reference (METRIC section 8). */
function levelFigures(r: ReferenceStats, level: string | null) {
  const s = level ? r.levels[level] : undefined
  if (!s) return null
  const total = s.hits + s.misses
  const hits = (s.temporalHits ?? 0) + (s.spatialHits ?? 0)
  return {
    misses: s.misses,
    ratio: total > 0 ? s.misses / total : null,
    spatialReuse: s.spatialReuse ?? null,
    temporal: s.temporalHits !== undefined && hits > 0 ? s.temporalHits / hits : null
  }
}

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
              <th scope="col" title="METRIC section 9, per instruction: this reference's accesses inside its regular streams / its accesses">Regularity</th>
              <th scope="col" title="METRIC section 9: mean length of this reference's own address streams (one instruction; the sidebar's address streams are per function, across instructions)">Mean ref. stream</th>
              <th scope="col">Strides (bytes)</th>
              <th scope="col">{activeLevel} misses</th>
              <th scope="col">Miss %</th>
              <th scope="col" title="METRIC: bytes used / bytes of the lines brought in">Spatial reuse</th>
              <th scope="col" title="Hits on a word used before / all hits">Temporal</th>
            </tr>
          </thead>
          <tbody>
            {references.map((r) => {
              const f = levelFigures(r, activeLevel)
              return (
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
                <td data-testid={`ref-misses-${r.id}`}>{f ? formatCount(f.misses) : '—'}</td>
                <td>{f ? formatPercent(f.ratio) : '—'}</td>
                <td>{f ? formatPercent(f.spatialReuse) : '—'}</td>
                <td>{f ? formatPercent(f.temporal) : '—'}</td>
              </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </div>
  )
}

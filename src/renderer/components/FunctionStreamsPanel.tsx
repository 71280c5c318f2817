/**
 * Mohan et al.'s per-function stream statistics and Table 1's advice, next to the evidence:
 * what kind of access pattern each traced function has, and what to try.
 */
import type { FunctionStreams } from '../../shared/domain'
import { formatCount, formatPercent } from '../logic/format'

/** Mohan's length buckets, with labels that fit the sidebar. */
const BUCKETS: Array<[keyof FunctionStreams['lengthBuckets'], string]> = [
  ['4-32', '4–32'],
  ['32-128', '32–128'],
  ['128-16384', '128–16K'],
  ['>16384', '>16K']
]

export function FunctionStreamsPanel({ functions }: { functions: FunctionStreams[] }) {
  if (functions.length === 0) return null
  return (
    <section className="function-streams" data-testid="function-streams" aria-label="Stream statistics per function">
      <h3 className="side-title">Streams</h3>
      {functions.map((f) => (
        <div key={f.function} className="function-streams-item">
          <div className="function-streams-head">
            <code>{f.function}</code>
            <span className="muted small" title="Mohan: accesses in streams of length 4 or more / accesses">
              regularity {formatPercent(f.spatialRegularity)}
            </span>
          </div>
          <p className="muted small">
            {formatCount(f.streams)} streams, mean length {formatCount(Math.round(f.meanLength))} (±{formatCount(Math.round(f.lengthDeviation))}), mean stride{' '}
            {formatCount(Math.round(f.meanStride))} B
          </p>
          <dl className="function-streams-buckets small" aria-label="streams per length">
            {BUCKETS.map(([b, label]) => (
              <div key={b} title={`streams of length ${b}`}>
                <dt>{label}</dt>
                <dd>{formatCount(f.lengthBuckets[b])}</dd>
              </div>
            ))}
          </dl>
          {f.advice.map((a) => (
            <p key={a.optimization} className="function-streams-advice small" title={a.rule}>
              <strong>{a.optimization}</strong> — {a.evidence}
            </p>
          ))}
        </div>
      ))}
    </section>
  )
}

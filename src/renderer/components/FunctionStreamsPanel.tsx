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
      <h3 className="side-title" title="Mohan et al. section 3: streams detected in the function's accesses in program order, across instructions (A[i], B[i], C[i] read in turn can form a stream of three). The hover card's reference streams are per instruction (METRIC section 9).">
        Address streams per function
      </h3>
      <p className="muted small function-streams-def">Detected in each function's accesses in order, across instructions (Mohan). Per-instruction streams: the line hover card.</p>
      {functions.map((f) => (
        <div key={f.function} className="function-streams-item">
          <div className="function-streams-head">
            <code>{f.function}</code>
            <span className="muted small" title="Mohan's spatial regularity: accesses that belong to a detected stream (length 3 or more) / accesses">
              regularity {formatPercent(f.spatialRegularity)}
            </span>
          </div>
          <p className="muted small">
            {formatCount(f.streams)} address streams, mean length {formatCount(Math.round(f.meanLength))} (±{formatCount(Math.round(f.lengthDeviation))}), mean stride{' '}
            {formatCount(Math.round(f.meanStride))} B
          </p>
          {f.streams > 0 && f.meanLength < 4 && (
            <p className="muted small" data-testid="short-streams-note">
              Mostly streams of 3 (accesses interleaved across instructions), counted in regularity; the length buckets start at 4.
            </p>
          )}
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

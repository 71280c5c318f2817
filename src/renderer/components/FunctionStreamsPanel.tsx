/**
 * Mohan et al.'s per-function stream statistics and Table 1's advice, next to the evidence:
 * what kind of access pattern each traced function has, and what to try.
 */
import { useEffect, useState } from 'react'
import type { FunctionStreams, SessionInfo } from '../../shared/domain'
import { formatCount, formatPercent } from '../logic/format'
import { errorMessage, stride } from '../state/stride'

/** Mohan's length buckets, with labels that fit the sidebar. */
const BUCKETS: Array<[keyof FunctionStreams['lengthBuckets'], string]> = [
  ['4-32', '4–32'],
  ['32-128', '32–128'],
  ['128-16384', '128–16K'],
  ['>16384', '>16K']
]

/** What a pass of the detectors costs, said before the user asks for it (~20 M accesses/s here). */
function passEstimate(events: number): string {
  const seconds = events / 20e6
  return seconds < 1 ? 'about a second' : `about ${Math.ceil(seconds)} s`
}

/**
 * The session's function statistics: as stored, or, when the trace left them for a request
 * (a third of an irregular program's trace CPU, for this panel), a button that computes them in
 * a worker and keeps them in the session.
 */
export function SessionFunctionStreams({ info }: { info: SessionInfo }) {
  const [computed, setComputed] = useState<FunctionStreams[] | null>(null)
  const [status, setStatus] = useState<'idle' | 'computing' | 'error'>('idle')
  const [error, setError] = useState<string | null>(null)
  // Another session: what was computed for the last one is not this one's.
  useEffect(() => {
    setComputed(null)
    setStatus('idle')
    setError(null)
  }, [info.path])
  if (computed) return <FunctionStreamsPanel functions={computed} />
  if (!info.functionStreamsPending) return <FunctionStreamsPanel functions={info.functionStreams ?? []} />
  const compute = async () => {
    setStatus('computing')
    setError(null)
    try {
      setComputed(await stride().computeFunctionStreams({ session: info.path }))
      setStatus('idle')
    } catch (e) {
      setStatus('error')
      setError(errorMessage(e))
    }
  }
  return (
    <section className="function-streams" data-testid="function-streams-pending" aria-label="Stream statistics per function">
      <h3 className="side-title">Address streams per function</h3>
      <p className="muted small">
        Mohan's stream detector over each function's accesses: one pass over the {formatCount(info.events)} recorded accesses, {passEstimate(info.events)}, then kept in the session.
      </p>
      <button type="button" data-testid="compute-function-streams" disabled={status === 'computing'} onClick={() => void compute()}>
        {status === 'computing' ? 'Computing…' : 'Compute address streams'}
      </button>
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </section>
  )
}

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

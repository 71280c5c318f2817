/**
 * The Data structures tab's cache lines that threads share (issue 50): asked for on request
 * (getSharedLines reads the trace twice), at the level's line size. Per line: its data
 * structures, false or true sharing, each thread's fields and accesses, and the two figures of
 * coherence misses, each named (recorded order; fine interleaving, an upper bound).
 */
import { useState } from 'react'
import type { SharedLines } from '../../shared/domain'
import { formatCount } from '../logic/format'
import { computeSharedLineRows } from '../logic/shared-lines'
import { errorMessage, stride } from '../state/stride'

export function SharedLinesPanel({ session, lineSize }: { session: string; lineSize: number }) {
  const [state, setState] = useState<{ key: string; status: 'running' | 'ready' | 'error'; result?: SharedLines; error?: string } | null>(null)
  const key = `${session}\u0000${lineSize}`
  const current = state?.key === key ? state : null
  const find = async () => {
    setState({ key, status: 'running' })
    try {
      const result = await stride().getSharedLines({ session, lineSize })
      setState((s) => (s?.key === key ? { key, status: 'ready', result } : s))
    } catch (e) {
      setState((s) => (s?.key === key ? { key, status: 'error', error: errorMessage(e) } : s))
    }
  }
  const rows = current?.result ? computeSharedLineRows(current.result) : null
  return (
    <section className="shared-lines" aria-label="Cache lines threads share" data-testid="shared-lines">
      <h3 className="side-title">Cache lines threads share</h3>
      <div className="objects-actions">
        <button type="button" className="button" disabled={current?.status === 'running'} onClick={() => void find()} data-testid="shared-lines-find">
          {rows ? 'Find again' : 'Find shared lines'}
        </button>
        <span className="muted small">Whatever order the threads ran in: which threads read and write which bytes of each {lineSize}-byte line (two passes over the trace).</span>
      </div>
      {current?.status === 'running' && <p className="muted small">reading the trace…</p>}
      {current?.status === 'error' && (
        <div className="notice error" role="alert" data-testid="shared-lines-error">
          {current.error}
        </div>
      )}
      {rows && current?.result && (
        <>
          <p className="small" data-testid="shared-lines-summary">
            {rows.length === 0 ? `No line is shared by ${current.result.threads.length > 1 ? 'these' : 'a single thread’s'} threads with one of them writing.` : `${rows.length} shared line${rows.length === 1 ? '' : 's'} among threads ${current.result.threads.join(', ')}.`}{' '}
            <span className="muted">{current.result.note}</span>
          </p>
          {rows.length > 0 && (
            <table className="data-table small" data-testid="shared-lines-table">
              <thead>
                <tr>
                  <th>Line</th>
                  <th>Data structures</th>
                  <th>Sharing</th>
                  <th>Threads: fields (reads/writes)</th>
                  <th className="num" title="Accesses by a thread other than the line's previous one, in the recorded order">Interleavings</th>
                  <th className="num" title="Coherence misses in the recorded order (false sharing in brackets)">Recorded</th>
                  <th className="num" title="Coherence misses with the threads finely interleaved, an upper bound (false sharing in brackets)">Fine estimate</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.address} data-verdict={r.verdict}>
                    <td className="mono">{r.address}</td>
                    <td>{r.variables}</td>
                    <td>{r.verdict}</td>
                    <td>
                      {r.threads.map((t) => (
                        <div key={t.thread}>
                          {t.thread}: {t.fields} ({formatCount(t.reads)}/{formatCount(t.writes)}){t.trueSharing ? ' · same bytes as another thread' : ''}
                        </div>
                      ))}
                    </td>
                    <td className="num">{formatCount(r.interleavings)}</td>
                    <td className="num">
                      {formatCount(r.recordedTotal)} ({formatCount(r.recordedFalse)})
                    </td>
                    <td className="num">
                      {formatCount(r.estimateTotal)} ({formatCount(r.estimateFalse)})
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  )
}

/** What the open session is: program, size of the trace, and whether it is partial and why. */
import type { SessionInfo, TraceStopReason } from '../../shared/domain'
import { baseName, formatBytes, formatCount, formatDate } from '../logic/format'

const STOP_LABEL: Record<TraceStopReason, string> = {
  completed: 'completed',
  'max-events': 'stopped at the event limit',
  'time-limit': 'stopped at the time limit',
  cancelled: 'cancelled',
  'target-crashed': 'the program crashed',
  'target-exited-early': 'the program exited early',
  error: 'stopped by an error'
}

export function SessionSummary({ info }: { info: SessionInfo }) {
  return (
    <section className="session-summary" aria-label="Session" data-testid="session-summary">
      <h2 className="session-program" title={info.program}>
        {baseName(info.program)}
        {info.partial && (
          <span className="badge warning" data-testid="partial-badge" title={info.stopMessage ?? undefined}>
            partial
          </span>
        )}
      </h2>
      {info.args.length > 0 && <p className="muted small mono">{info.args.join(' ')}</p>}
      {info.partial && (
        <p className="small partial-note" data-testid="partial-note">
          Partial trace: {info.stopMessage ?? STOP_LABEL[info.stopReason]}
        </p>
      )}
      <dl className="facts">
        <div>
          <dt>Events</dt>
          <dd data-testid="session-events">{formatCount(info.events)}</dd>
        </div>
        <div>
          <dt>Access points</dt>
          <dd>{formatCount(info.points)}</dd>
        </div>
        <div>
          <dt>Stored</dt>
          <dd>{formatBytes(info.storedBytes)}</dd>
        </div>
        <div>
          <dt>Recorded</dt>
          <dd>{formatDate(info.createdAt)}</dd>
        </div>
        {info.programExit && (
          <div>
            <dt>Program</dt>
            <dd data-testid="program-exit" className={info.programExit.signal || info.programExit.code ? 'warning-text' : undefined}>
              {info.programExit.signal ? `killed by ${info.programExit.signal}` : `exit status ${info.programExit.code ?? 'unknown'}`}
            </dd>
          </div>
        )}
        {info.recorder === 'lackey' && (
          <div className="wide">
            <dt>Recorded with</dt>
            <dd className="warning-text" data-testid="recorder-note" title={info.recorderNote ?? undefined}>
              Lackey, the slow fallback: Stride's Valgrind tool could not be used
            </dd>
          </div>
        )}
        {info.threads != null && info.threads > 1 && (
          <div>
            <dt>Threads</dt>
            <dd title="Their accesses are interleaved in the order Valgrind ran them">{info.threads}</dd>
          </div>
        )}
        {info.functions.length > 0 && (
          <div className="wide">
            <dt>Functions</dt>
            <dd>
              {info.functions.map((f) => (
                <code key={f} className="fn-tag">
                  {f}
                </code>
              ))}
            </dd>
          </div>
        )}
      </dl>
      <p className="muted small session-path" title={info.path}>
        {info.path}
      </p>
    </section>
  )
}

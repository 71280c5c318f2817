/** The running (or just failed) trace or simulation job: progress, Cancel, and failures with their fix. */
import { ProgressReadout } from '../components/ProgressReadout'
import { baseName } from '../logic/format'
import { useJobs } from '../state/job-store'
import { useSession } from '../state/session-store'

const verb = (kind: 'trace' | 'simulate') => (kind === 'trace' ? 'Trace' : 'Simulation')

export function JobBanner() {
  const { active, cancel, dismiss } = useJobs()
  const open = useSession((s) => s.open)
  if (!active) return null

  if (active.status === 'failed' && active.failed) {
    const partial = active.failed.session
    return (
      <section className="job-banner is-failed" role="alert" data-testid="job-failed">
        <div className="job-banner-main">
          <strong>{verb(active.kind)} of {baseName(active.program)} failed</strong>
          <p className="job-error" data-testid="job-error">
            {active.failed.error}
          </p>
        </div>
        <div className="job-banner-actions">
          {partial && (
            <button
              type="button"
              className="button primary"
              data-testid="open-partial"
              onClick={() => {
                dismiss()
                void open(partial)
              }}
            >
              Open partial session
            </button>
          )}
          <button type="button" className="button" onClick={dismiss}>
            Dismiss
          </button>
        </div>
      </section>
    )
  }

  if (active.status === 'finished') {
    return (
      <section className="job-banner" role="status">
        <div className="job-banner-main">
          <strong>{verb(active.kind)} of {baseName(active.program)} ended</strong>
          <p>{active.finished?.message ?? 'Nothing was recorded.'}</p>
        </div>
        <button type="button" className="button" onClick={dismiss}>
          Dismiss
        </button>
      </section>
    )
  }

  return (
    <section className="job-banner is-running" aria-label={active.kind === 'trace' ? 'Running trace' : 'Running simulation'} data-testid="job-running">
      <div className="job-banner-main">
        <strong title={active.program}>
          {active.kind === 'trace' ? 'Tracing' : 'Simulating'} {baseName(active.program)}
        </strong>
        <ProgressReadout progress={active.progress} kind={active.kind} functions={active.functions} />
      </div>
      <button type="button" className="button danger" onClick={() => void cancel()} disabled={active.cancelling} data-testid="cancel-job">
        {active.cancelling ? 'Stopping…' : 'Cancel'}
      </button>
    </section>
  )
}

/** The running (or just failed) trace or simulation job: progress, Cancel, and failures with their fix. */
import { ProgramOutputPanel } from '../components/ProgramOutputPanel'
import { ProgressReadout } from '../components/ProgressReadout'
import { baseName } from '../logic/format'
import { useJobs } from '../state/job-store'
import { useSession } from '../state/session-store'

const verb = (kind: 'trace' | 'simulate') => (kind === 'trace' ? 'Trace' : 'Simulation')

export function JobBanner() {
  const { active, cancel, dismiss, output } = useJobs()
  const open = useSession((s) => s.open)
  if (!active) return null
  // The program's output, for a trace this banner shows (a what-if runs no program).
  const programOutput = active.kind === 'trace' && output?.jobId === active.jobId ? output : null

  if (active.status === 'failed' && active.failed) {
    const partial = active.failed.session
    return (
      <section className="job-banner is-failed" role="alert" data-testid="job-failed">
        <div className="job-banner-main">
          <strong>{verb(active.kind)} of {baseName(active.program)} failed</strong>
          <p className="job-error" data-testid="job-error">
            {active.failed.error}
          </p>
          {programOutput && <ProgramOutputPanel output={programOutput} live={false} defaultOpen={programOutput.chars > 0} />}
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
          {programOutput && <ProgramOutputPanel output={programOutput} live={false} />}
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
        {programOutput && <ProgramOutputPanel output={programOutput} live />}
      </div>
      <button type="button" className="button danger" onClick={() => void cancel()} disabled={active.cancelling} data-testid="cancel-job">
        {active.cancelling ? 'Stopping…' : 'Cancel'}
      </button>
    </section>
  )
}

/** One-line live readout of a job's progress (announced politely to screen readers). */
import type { JobProgress } from '../../shared/api'
import { formatCompact, formatCount, formatDuration } from '../logic/format'

const PHASE_LABEL: Record<JobProgress['phase'], string> = {
  starting: 'Starting',
  tracing: 'Tracing',
  symbolizing: 'Symbolizing',
  simulating: 'Simulating',
  saving: 'Saving',
  done: 'Done'
}

export function ProgressReadout({ progress }: { progress: JobProgress | null }) {
  if (!progress)
    return (
      <div className="progress-readout" role="status" data-testid="progress-readout" data-phase="starting">
        <span className="phase">Starting</span>
        <span className="muted">launching the program…</span>
      </div>
    )
  const pct = progress.total ? Math.min(100, (100 * progress.events) / progress.total) : null
  return (
    <div className="progress-readout" role="status" aria-live="polite" data-testid="progress-readout" data-phase={progress.phase}>
      <span className="phase">{PHASE_LABEL[progress.phase]}</span>
      <span>
        <strong data-testid="progress-events">{formatCount(progress.events)}</strong>
        {progress.total ? ` / ${formatCount(progress.total)}` : ''} events
      </span>
      <span>{formatCompact(progress.eventsPerSecond)} events/s</span>
      <span>{formatDuration(progress.elapsedMs)}</span>
      {progress.message && <span className="muted">{progress.message}</span>}
      {pct !== null && (
        <progress max={100} value={pct} aria-label="Progress">
          {pct.toFixed(0)}%
        </progress>
      )}
    </div>
  )
}

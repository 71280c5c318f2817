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

interface Props {
  progress: JobProgress | null
  /** What is starting: a trace launches the program, a simulation only reads the trace. */
  kind?: 'trace' | 'simulate'
  /** The traced functions, to say why no event has come yet. */
  functions?: string[]
}

/** After this long with no event, a trace says it is waiting for the chosen functions. */
const WAITING_HINT_MS = 2000

export function ProgressReadout({ progress, kind = 'trace', functions = [] }: Props) {
  if (!progress)
    return (
      <div className="progress-readout" role="status" data-testid="progress-readout" data-phase="starting">
        <span className="phase">Starting</span>
        <span className="muted">{kind === 'simulate' ? 'reading the recorded trace (nothing is re-run)…' : 'launching the program…'}</span>
      </div>
    )
  const waiting =
    progress.phase === 'tracing' && progress.events === 0 && progress.elapsedMs >= WAITING_HINT_MS && functions.length > 0
      ? `waiting for ${functions.length === 1 ? functions[0] : `${functions.slice(0, 3).join(', ')}${functions.length > 3 ? '…' : ''}`} to be called`
      : null
  const pct = progress.total ? Math.min(100, (100 * progress.events) / progress.total) : null
  return (
    <div className="progress-readout" role="status" aria-live="polite" data-testid="progress-readout" data-phase={progress.phase}>
      <span className="phase">{PHASE_LABEL[progress.phase]}</span>
      <span>
        <strong data-testid="progress-events">{formatCount(progress.events)}</strong>
        {progress.total ? ` / ${formatCount(progress.total)}` : ''} events
      </span>
      <span title="over the last second">{formatCompact(progress.eventsPerSecond)} events/s</span>
      <span>{formatDuration(progress.elapsedMs)}</span>
      {progress.message && <span className="muted">{progress.message}</span>}
      {waiting && (
        <span className="muted" data-testid="progress-waiting">
          {waiting}
        </span>
      )}
      {pct !== null && (
        <progress max={100} value={pct} aria-label="Progress">
          {pct.toFixed(0)}%
        </progress>
      )}
    </div>
  )
}

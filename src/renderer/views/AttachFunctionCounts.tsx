/** While an attach trace runs: per chosen function, sampled calls and accesses (from progress events). */
import { useJobs } from '../state/job-store'

export function AttachFunctionCounts() {
  const functions = useJobs((s) => (s.active?.status === 'running' ? s.active.progress?.functions : undefined))
  if (!functions || functions.length === 0) return null
  return (
    <ul className="attach-counts" aria-label="Per-function progress" data-testid="attach-counts">
      {functions.map((f) => (
        <li key={f.name}>
          <code>{f.name}</code> <span className="num">{f.events.toLocaleString('en-US')}</span> accesses in <span className="num">{f.samples.toLocaleString('en-US')}</span> calls
          {f.done && <span className="muted"> · sampling done</span>}
        </li>
      ))}
    </ul>
  )
}

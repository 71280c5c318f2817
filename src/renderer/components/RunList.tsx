/** Simulation runs stored in the session, each with its label; selecting one makes it the active run. */
import { useState } from 'react'
import type { RunSummary } from '../../shared/domain'
import { describeHierarchy } from '../../shared/run-labels'
import { cacheContextText } from '../../shared/cache-context'
import { formatCompact, formatDate } from '../logic/format'

export { describeHierarchy }

interface Props {
  runs: RunSummary[]
  current: number | null
  onSelect(run: number): void
  /** Gives a run the user's label ('' goes back to the derived one). */
  onRename?(run: number, label: string): void
}

export function RunList({ runs, current, onSelect, onRename }: Props) {
  const [editing, setEditing] = useState<number | null>(null)
  const [draft, setDraft] = useState('')
  if (runs.length === 0) return <p className="muted small">No simulation run in this session yet.</p>
  return (
    <ul className="run-list" aria-label="Simulation runs">
      {[...runs]
        .sort((a, b) => b.run - a.run)
        .map((r) =>
          editing === r.run && onRename ? (
            <li key={r.run}>
              <form
                className="run-rename"
                onSubmit={(e) => {
                  e.preventDefault()
                  onRename(r.run, draft)
                  setEditing(null)
                }}
              >
                <label className="field">
                  <span className="small">Label of run {r.run} (empty: derived)</span>
                  <input value={draft} autoFocus maxLength={200} onChange={(e) => setDraft(e.target.value)} data-testid="run-rename-input" />
                </label>
                <span className="run-rename-actions">
                  <button type="submit" className="button small primary" data-testid="run-rename-save">
                    Save
                  </button>
                  <button type="button" className="button small" onClick={() => setEditing(null)}>
                    Cancel
                  </button>
                </span>
              </form>
            </li>
          ) : (
            <li key={r.run} className="run-row">
              <button
                type="button"
                className={`run-item ${r.run === current ? 'is-current' : ''}`}
                aria-current={r.run === current ? 'true' : undefined}
                onClick={() => onSelect(r.run)}
                data-testid="run-item"
                title={`${describeHierarchy(r.config)} · ${formatDate(r.createdAt)}`}
              >
                <span className="run-name">
                  Run {r.run}
                  {r.run === current ? <span className="muted small"> · active</span> : null}
                </span>
                <span className="run-config" data-testid="run-label">
                  {r.label}
                </span>
                {/* A function's trace: its first run warmed by the whole program, what-ifs cold. */}
                {r.cacheContext && (
                  <span className="muted small" data-testid="run-context">
                    {cacheContextText(r.cacheContext)}
                  </span>
                )}
                <span className="muted small">{formatCompact(r.accesses)} accesses</span>
              </button>
              {onRename && (
                <button
                  type="button"
                  className="button small run-rename-button"
                  aria-label={`Rename run ${r.run}`}
                  onClick={() => {
                    setDraft(r.name ?? r.label)
                    setEditing(r.run)
                  }}
                  data-testid="run-rename"
                >
                  Rename
                </button>
              )}
            </li>
          )
        )}
    </ul>
  )
}

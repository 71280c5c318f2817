/** Simulation runs stored in the session; selecting one loads its report. */
import type { HierarchyConfig, RunSummary } from '../../shared/domain'
import { formatSize } from '../../shared/sizes'
import { formatCompact, formatDate } from '../logic/format'

export function describeHierarchy(c: HierarchyConfig): string {
  const levels = c.levels.map((l) => `${l.name} ${formatSize(l.size)} ${l.assoc}-way ${l.lineSize}B`).join(', ')
  const pads = (c.layout ?? []).map((f) => (f.kind === 'external' ? `pad ${f.variable} +${formatSize(f.bytes)}` : `${f.variable} dim ${f.dim} → ${f.extent}`))
  const text = [levels, ...pads].join('; ')
  return c.cachegrindCompatible ? `${text} (Cachegrind)` : text
}

interface Props {
  runs: RunSummary[]
  current: number | null
  onSelect(run: number): void
}

export function RunList({ runs, current, onSelect }: Props) {
  if (runs.length === 0) return <p className="muted small">No simulation run in this session yet.</p>
  return (
    <ul className="run-list" aria-label="Simulation runs">
      {[...runs]
        .sort((a, b) => b.run - a.run)
        .map((r) => (
          <li key={r.run}>
            <button
              type="button"
              className={`run-item ${r.run === current ? 'is-current' : ''}`}
              aria-current={r.run === current ? 'true' : undefined}
              onClick={() => onSelect(r.run)}
              data-testid="run-item"
              title={formatDate(r.createdAt)}
            >
              <span className="run-name">Run {r.run}</span>
              <span className="run-config">{describeHierarchy(r.config)}</span>
              <span className="muted small">{formatCompact(r.accesses)} accesses</span>
            </button>
          </li>
        ))}
    </ul>
  )
}

/** Recently opened sessions; a click reopens one. Missing files stay listed, greyed. */
import type { RecentSession } from '../../shared/domain'
import { baseName, formatDate } from '../logic/format'

interface Props {
  items: RecentSession[]
  current: string | null
  onOpen(path: string): void
}

export function RecentSessionsList({ items, current, onOpen }: Props) {
  if (items.length === 0) return <p className="muted small">No sessions yet. Launch a program to record one.</p>
  return (
    <ul className="recent-list" aria-label="Recent sessions">
      {items.map((s) => (
        <li key={s.path}>
          <button
            type="button"
            className={`recent-item ${s.exists ? '' : 'is-missing'} ${current === s.path ? 'is-current' : ''}`}
            disabled={!s.exists}
            title={s.path}
            aria-current={current === s.path ? 'true' : undefined}
            onClick={() => onOpen(s.path)}
            data-testid="recent-session"
          >
            <span className="recent-program">{baseName(s.program)}</span>
            <span className="recent-meta">
              {s.exists ? `${baseName(s.path)} · ${formatDate(s.openedAt)}` : 'file missing'}
            </span>
          </button>
        </li>
      ))}
    </ul>
  )
}

/**
 * The tabs over one run (source, and the explore views added next to it). Arrow keys move
 * between tabs (WAI-ARIA tabs pattern); Alt+1..9 jumps from anywhere in the app.
 */
import { useEffect, useRef } from 'react'
import type { WorkspaceTab } from '../state/session-store'

export const WORKSPACE_TABS: { id: WorkspaceTab; label: string }[] = [
  { id: 'source', label: 'Source' },
  // ---- evictor graph and advisor ----
  { id: 'evictors', label: 'Evictors' },
  { id: 'advisor', label: 'Advisor' },
  // ---- what-if and comparison ----
  { id: 'whatif', label: 'What-if' },
  { id: 'compare', label: 'Compare' },
  // ---- data structures ----
  { id: 'objects', label: 'Data structures' },
  // ---- query slices ----
  { id: 'query', label: 'Query' },
  // ---- over time ----
  // (A view over a run is one entry here and one panel in SessionView.)
  { id: 'timeline', label: 'Timeline' },
  // ---- threads: listed only for a session of several threads (last, so Alt+N stays put) ----
  { id: 'threads', label: 'Threads' }
]

/** The tabs a session shows: Threads only where it has several. */
export function workspaceTabs(threads: number | null | undefined): typeof WORKSPACE_TABS {
  return (threads ?? 1) > 1 ? WORKSPACE_TABS : WORKSPACE_TABS.filter((t) => t.id !== 'threads')
}

interface Props {
  value: WorkspaceTab
  onChange(tab: WorkspaceTab): void
  /** The session's threads (SessionInfo.threads): the Threads tab is listed for several. */
  threads?: number | null
}

export function WorkspaceTabBar({ value, onChange, threads = null }: Props) {
  const tabs = workspaceTabs(threads)
  const refs = useRef(new Map<WorkspaceTab, HTMLButtonElement>())

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return
      const n = Number(e.key)
      const tab = Number.isInteger(n) && n >= 1 ? tabs[n - 1] : undefined
      if (!tab) return
      e.preventDefault()
      onChange(tab.id)
      refs.current.get(tab.id)?.focus()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [onChange, tabs])

  const move = (delta: number) => {
    const i = tabs.findIndex((t) => t.id === value)
    const next = tabs[(i + delta + tabs.length) % tabs.length]!
    onChange(next.id)
    refs.current.get(next.id)?.focus()
  }

  return (
    <div className="tab-bar" role="tablist" aria-label="Views of this run" data-testid="workspace-tabs">
      {tabs.map((t, i) => (
        <button
          key={t.id}
          ref={(el) => {
            if (el) refs.current.set(t.id, el)
            else refs.current.delete(t.id)
          }}
          type="button"
          role="tab"
          id={`tab-${t.id}`}
          aria-selected={t.id === value}
          aria-controls={`tabpanel-${t.id}`}
          tabIndex={t.id === value ? 0 : -1}
          className={`tab ${t.id === value ? 'is-on' : ''}`}
          title={`${t.label} (Alt+${i + 1})`}
          data-testid={`tab-${t.id}`}
          onClick={() => onChange(t.id)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') move(1)
            else if (e.key === 'ArrowLeft') move(-1)
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  )
}

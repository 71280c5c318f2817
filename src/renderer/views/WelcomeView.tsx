/** Empty state: what Stride does, the bundled examples as one-click starts, recent sessions. */
import { useState } from 'react'
import { BrowseButton } from '../components/FileBrowserDialog'
import { useLaunch } from '../state/launch-store'
import { useJobs } from '../state/job-store'
import { useSession } from '../state/session-store'
import { RecentPanel } from './RecentPanel'

export function WelcomeView() {
  const { examples, openDialog } = useLaunch()
  const { status, error, open } = useSession()
  const [path, setPath] = useState('')
  const running = useJobs((s) => s.active?.status === 'running')
  return (
    <div className="welcome">
      <section className="welcome-main">
        <h1>Find where your cache misses come from</h1>
        <p className="lead">
          Stride traces the loads and stores of the functions you choose, simulates a cache on them, and paints each
          source line by its misses.
        </p>
        {status === 'loading' && <p className="muted">Opening session…</p>}
        {status === 'error' && error && (
          <p className="notice error" role="alert" data-testid="session-error">
            {error}
          </p>
        )}
        <button type="button" className="button primary large" onClick={() => openDialog()} disabled={running}>
          Launch program…
        </button>
        <form
          className="open-session"
          onSubmit={(e) => {
            e.preventDefault()
            if (path.trim()) void open(path.trim())
          }}
        >
          <label className="field inline">
            <span>Open a session file</span>
            <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/path/to/run.stride" size={48} data-testid="open-session-path" spellCheck={false} />
          </label>
          <BrowseButton
            purpose="session"
            onPick={(p) => {
              setPath(p)
              void open(p)
            }}
            testId="browse-session"
          />
          <button type="submit" className="button" disabled={!path.trim() || status === 'loading'} data-testid="open-session">
            Open
          </button>
        </form>
        {examples.length > 0 && (
          <>
            <h2 className="side-title">Try an example</h2>
            <ul className="welcome-examples">
              {examples.map((ex) => (
                <li key={ex.name}>
                  <button type="button" className="example-card as-button" disabled={(!ex.built && !ex.buildable) || running} onClick={() => openDialog(ex.name)} data-testid={`welcome-example-${ex.name}`}>
                    <span className="example-title">{ex.title}</span>
                    <span className="example-description">{ex.description}</span>
                    {ex.buildNote && (
                      <span className="example-note" data-testid={`welcome-example-note-${ex.name}`}>
                        {ex.buildNote}
                      </span>
                    )}
                  </button>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <aside className="welcome-side">
        <RecentPanel />
      </aside>
    </div>
  )
}

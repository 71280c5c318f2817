/** Top-level layout: header with Launch, the job banner, and either a session or the welcome screen. */
import { useEffect } from 'react'
import { useJobs } from '../state/job-store'
import { useLaunch } from '../state/launch-store'
import { useRecent } from '../state/recent-store'
import { useSession } from '../state/session-store'
import { useTheme, type ThemeChoice } from '../state/theme-store'
import { JobBanner } from './JobBanner'
import { LaunchDialog } from './LaunchDialog'
import { SessionView } from './SessionView'
import { WelcomeView } from './WelcomeView'
// ---- Frida attach ----
import { useAttach } from '../state/attach-store'
import { AttachDialog } from './AttachDialog'
import { AttachFunctionCounts } from './AttachFunctionCounts'

export function App() {
  const dialogOpen = useLaunch((s) => s.open)
  const openDialog = useLaunch((s) => s.openDialog)
  const running = useJobs((s) => s.active?.status === 'running')
  const hasSession = useSession((s) => s.info !== null)
  const closeSession = useSession((s) => s.close)
  const theme = useTheme()
  const attachOpen = useAttach((s) => s.open)
  const openAttach = useAttach((s) => s.openDialog)

  useEffect(() => {
    const off = useJobs.getState().connect()
    void useRecent.getState().load()
    void useLaunch.getState().loadExamples()
    return off
  }, [])

  return (
    <div className="app">
      <header className="app-header">
        <button type="button" className="brand" onClick={closeSession} title="Home">
          <span className="brand-mark" aria-hidden="true" />
          Stride
        </button>
        <span className="muted small">memory-access profiler</span>
        <div className="spacer" />
        <label className="field inline small">
          <span className="visually-hidden">Theme</span>
          <select value={theme.choice} onChange={(e) => theme.setChoice(e.target.value as ThemeChoice)} aria-label="Theme" data-testid="theme-select">
            <option value="system">System theme</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <button type="button" className="button" onClick={openAttach} disabled={running} data-testid="attach-button">
          Attach…
        </button>
        <button type="button" className="button primary" onClick={() => openDialog()} disabled={running} data-testid="launch-button">
          Launch program…
        </button>
      </header>
      <JobBanner />
      <AttachFunctionCounts />
      <div className="app-body">{hasSession ? <SessionView /> : <WelcomeView />}</div>
      {dialogOpen && <LaunchDialog />}
      {attachOpen && <AttachDialog />}
    </div>
  )
}

/** Recent sessions wired to the stores (sidebar and welcome screen). */
import { RecentSessionsList } from '../components/RecentSessionsList'
import { useRecent } from '../state/recent-store'
import { useSession } from '../state/session-store'

export function RecentPanel() {
  const { items, error } = useRecent()
  const current = useSession((s) => s.path)
  const open = useSession((s) => s.open)
  return (
    <section aria-label="Recent sessions" className="recent-panel">
      <h3 className="side-title">Recent sessions</h3>
      {error ? <p className="form-error small">{error}</p> : <RecentSessionsList items={items} current={current} onOpen={(p) => void open(p)} />}
    </section>
  )
}

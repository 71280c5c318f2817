/** An open session: summary, runs and recent sessions on the side; heatmap and table in the middle. */
import { useMemo } from 'react'
import { ReferenceTable } from '../components/ReferenceTable'
import { FunctionStreamsPanel } from '../components/FunctionStreamsPanel'
import { RunList } from '../components/RunList'
import { Segmented } from '../components/Segmented'
import { SessionSummary } from '../components/SessionSummary'
import { baseName } from '../logic/format'
import type { HeatMetric } from '../logic/line-metrics'
import { computeReferenceRows, computeSourceFiles } from '../logic/references'
import { useSession } from '../state/session-store'
import { RecentPanel } from './RecentPanel'
import { SourcePane } from './SourcePane'
import { WorkspaceTabBar } from './WorkspaceTabBar'
import { QueryView } from './QueryView'

const METRICS: { value: HeatMetric; label: string }[] = [
  { value: 'misses', label: 'Misses' },
  { value: 'ratio', label: 'Miss ratio' }
]

export function SessionView() {
  const s = useSession()
  const { info, report, level, file } = s
  const files = useMemo(() => (report ? computeSourceFiles(report) : []), [report])
  const rows = useMemo(() => (report && level ? computeReferenceRows(report, level) : []), [report, level])
  if (!info) return null

  const levels = report?.levels.map((l) => l.name) ?? []
  const noLines = !info.hasDebugInfo || (report !== null && files.length === 0)

  return (
    <div className="session-layout">
      <aside className="sidebar">
        <SessionSummary info={info} />
        <section aria-label="Runs">
          <h3 className="side-title">Runs</h3>
          <RunList runs={info.runs} current={s.run} onSelect={(r) => void s.selectRun(r)} />
        </section>
        <FunctionStreamsPanel functions={info.functionStreams ?? []} />
        <RecentPanel />
      </aside>

      <main className="workspace">
        {report && <WorkspaceTabBar value={s.tab} onChange={s.setTab} />}
        {s.error && (
          <div className="notice error" role="alert">
            {s.error}
          </div>
        )}
        {s.reportStatus === 'loading' && <p className="muted pad">Loading run…</p>}
        {!report && s.reportStatus !== 'loading' && info.runs.length === 0 && (
          <div className="empty-state">
            <p>This session holds a trace but no simulation run yet.</p>
            <p className="muted small">Run one with: stride simulate {info.path} --cache L1:32K:8:64</p>
          </div>
        )}

        {(s.tab === 'source' || !report) && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-source" aria-labelledby="tab-source">
            <div className="toolbar">
              {files.length > 1 && (
                <label className="field inline">
                  <span>File</span>
                  <select value={file ?? ''} onChange={(e) => s.setFile(e.target.value)} data-testid="file-select">
                    {files.map((f) => (
                      <option key={f} value={f}>
                        {baseName(f)}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              {levels.length > 1 && level && (
                <Segmented label="Cache level" value={level} options={levels.map((l) => ({ value: l, label: l }))} onChange={s.setLevel} testId="level-selector" />
              )}
              {!noLines && <Segmented label="Paint by" value={s.metric} options={METRICS} onChange={s.setMetric} testId="metric-toggle" />}
              {report && (
                <span className="muted small toolbar-totals">
                  {report.levels.map((l) => `${l.name}: ${(l.readMisses + l.writeMisses).toLocaleString('en-US')} misses`).join(' · ')}
                </span>
              )}
            </div>

            {noLines && (
              <div className="notice warning" data-testid="no-debug-info">
                <strong>Source lines are unavailable. </strong>
                {info.debugInfoHint ?? 'The program has no debug information: rebuild it with -g (e.g. gcc -g -O1) and trace again.'} The table
                below still lists every access point by instruction address.
              </div>
            )}

            {report && level && (
              <div className={`panes ${noLines || !file ? 'table-only' : ''}`}>
                {!noLines && file && <SourcePane session={info.path} report={report} file={file} level={level} metric={s.metric} />}
                <section className="table-pane" aria-label="Access points">
                  <div className="pane-header">
                    <h3 className="pane-title">Access points</h3>
                    <span className="muted small">
                      {rows.length.toLocaleString('en-US')} references · {level}
                    </span>
                  </div>
                  <ReferenceTable
                    rows={rows}
                    level={level}
                    selectedId={s.selection?.reference ?? null}
                    selectedLine={s.selection && s.selection.line > 0 ? s.selection : null}
                    onActivate={(r) => s.select(r.file, r.line, r.id)}
                  />
                </section>
              </div>
            )}
          </div>
        )}
        {s.tab === 'query' && report && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-query" aria-labelledby="tab-query">
            <QueryView report={report} />
          </div>
        )}
      </main>
    </div>
  )
}

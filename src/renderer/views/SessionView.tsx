/** An open session: summary, runs and recent sessions on the side; heatmap and table in the middle. */
import { useCallback, useEffect, useMemo, useState } from 'react'
import { CodeTree } from '../components/CodeTree'
import { ReferenceTable } from '../components/ReferenceTable'
import { computeCodeTree } from '../logic/code-tree'
import { SessionFunctionStreams } from '../components/FunctionStreamsPanel'
import { RunList } from '../components/RunList'
import { Segmented } from '../components/Segmented'
import { SplitPanes, type SplitArrangement } from '../components/SplitPanes'
import { SessionSummary } from '../components/SessionSummary'
import { ProgramOutputPanel } from '../components/ProgramOutputPanel'
import { baseName } from '../logic/format'
import { HEAT_METRICS } from '../logic/heat-metrics'
import { computeLineDeltas, computeRunDiff } from '../../shared/run-diff'
import { computeReferenceRows, computeSourceFiles } from '../logic/references'
import { useSession } from '../state/session-store'
import { useJobs } from '../state/job-store'
import { useHostHierarchy } from '../state/host-store'
import { readChoice, writeChoice } from '../state/stored-choice'
import { ObjectsView } from './ObjectsView'
import { useThreadBreakdown } from '../state/thread-breakdown'
import { RecentPanel } from './RecentPanel'
import { CompareView } from './CompareView'
import { SourcePane } from './SourcePane'
import { WhatIfView } from './WhatIfView'
import { WorkspaceTabBar } from './WorkspaceTabBar'
import { AdvisorView } from './AdvisorView'
import { EvictorGraphView } from './EvictorGraphView'
import { QueryView } from './QueryView'
import { ThreadsView } from './ThreadsView'
import { TimelineView } from './TimelineView'

const ARRANGEMENT_KEY = 'stride.sourceArrangement'

const ARRANGEMENTS: readonly SplitArrangement[] = ['auto', 'side', 'stacked']

export function SessionView() {
  const s = useSession()
  // A session without runs offers this machine's caches (as Cachegrind simulates them).
  const host = useHostHierarchy()
  // The output of the trace this window just ran, beside the session it made.
  const programOutput = useJobs((j) => (j.output?.done && j.output.session !== null && j.output.session === s.path ? j.output : null))
  const [arrangement, setArrangement] = useState<SplitArrangement>(() => readChoice(ARRANGEMENT_KEY, ARRANGEMENTS, 'auto'))
  useEffect(() => writeChoice(ARRANGEMENT_KEY, arrangement), [arrangement])
  const { info, report, level, file } = s
  const threadsByReference = useThreadBreakdown(info?.path ?? null, info?.threads ?? null)
  const files = useMemo(() => (report ? computeSourceFiles(report) : []), [report])
  const rows = useMemo(() => (report && level ? computeReferenceRows(report, level) : []), [report, level])
  const tree = useMemo(() => (report && level ? computeCodeTree(report, level) : []), [report, level])
  const { setTab, select, setFile } = s
  // Stable, so that the memoized tree is not drawn again at every change of the store.
  const openCode = useCallback(
    (f: string, line: number | null) => {
      setTab('source')
      if (line !== null) select(f, line)
      else setFile(f)
    },
    [setTab, select, setFile]
  )
  const base = s.baselineReport
  // The active run against the baseline paints the source; none when the baseline is the active run itself.
  const baseIsActive = s.baseline !== null && s.baseline.session === s.path && s.baseline.run === s.run
  const diff = useMemo(() => (base && report && level && !baseIsActive ? computeRunDiff(base, report, level) : null), [base, report, level, baseIsActive])
  // Compare shows a run a what-if added (not active yet) against the baseline, else the active run.
  const compared = s.addedReport ?? report
  const compareDiff = useMemo(
    () => (s.addedReport ? (base && level ? computeRunDiff(base, s.addedReport, level) : null) : diff),
    [s.addedReport, base, level, diff]
  )
  const deltas = useMemo(() => (diff && file ? computeLineDeltas(diff, file) : undefined), [diff, file])
  const metrics = HEAT_METRICS.filter((m) => !m.needsBaseline || diff).map((m) => ({ value: m.id, label: m.label }))
  const metric = s.metric === 'delta' && !diff ? 'misses' : s.metric
  if (!info) return null

  const levels = report?.levels.map((l) => l.name) ?? []
  const noLines = !info.hasDebugInfo || (report !== null && files.length === 0)

  return (
    <div className="session-layout">
      <aside className="sidebar">
        <SessionSummary info={info} />
        {programOutput && (
          <section aria-label="Program output" className="side-section">
            <ProgramOutputPanel output={programOutput} live={false} defaultOpen testId="session-program-output" />
          </section>
        )}
        <section aria-label="Runs">
          <h3 className="side-title">Runs</h3>
          <RunList runs={info.runs} current={s.run} onSelect={(r) => void s.selectRun(r)} onRename={(r, label) => void s.renameRun(r, label)} />
        </section>
        <CodeTree nodes={tree} currentFile={file} onOpen={openCode} />
        <SessionFunctionStreams info={info} />
        <RecentPanel />
      </aside>

      <main className="workspace">
        {report && (
          <div className="tab-row">
            <WorkspaceTabBar value={s.tab} onChange={s.setTab} threads={info.threads} />
            {levels.length > 1 && level && (
              <Segmented label="Cache level" value={level} options={levels.map((l) => ({ value: l, label: l }))} onChange={s.setLevel} testId="level-selector" />
            )}
            <span className="muted small toolbar-totals" data-testid="run-totals">
              Run {report.run}: {report.levels.map((l) => `${l.name} ${(l.readMisses + l.writeMisses).toLocaleString('en-US')} misses`).join(' · ')}
            </span>
          </div>
        )}
        {s.error && (
          <div className="notice error" role="alert">
            {s.error}
          </div>
        )}
        {s.reportStatus === 'loading' && <p className="muted pad">Loading run…</p>}
        {!report && s.reportStatus !== 'loading' && info.runs.length === 0 && (
          <div className="empty-state" data-testid="no-runs">
            {info.events === 0 ? (
              <>
                <p>Nothing was recorded: the trace ended before {info.functions.length > 0 ? info.functions.join(', ') : 'the program'} made a load or store.</p>
                <p className="muted small">Launch it again and let it run longer, or choose other functions.</p>
              </>
            ) : (
              <>
                <p>This session holds a trace of {info.events.toLocaleString('en-US')} accesses but no simulation run yet.</p>
                <button
                  type="button"
                  className="button primary"
                  disabled={!host}
                  onClick={() => host && void useJobs.getState().simulate({ session: info.path, config: host.config })}
                  data-testid="simulate-default"
                >
                  {host ? `Simulate this machine's caches: ${host.summary}` : "Reading this machine's caches…"}
                </button>
                {host && <p className="muted small">{host.note}</p>}
                <p className="muted small">Other caches: the What-if tab, once a run exists.</p>
              </>
            )}
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
              {!noLines && (
                <label className="field inline">
                  <span>Paint by</span>
                  <select value={metric} onChange={(e) => s.setMetric(e.target.value as typeof metric)} data-testid="metric-select">
                    {metrics.map((m) => (
                      <option key={m.value} value={m.value}>
                        {m.label}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              {!noLines && file && (
                <Segmented
                  label="Layout"
                  value={arrangement}
                  options={[
                    { value: 'auto', label: 'Auto' },
                    { value: 'side', label: 'Side by side' },
                    { value: 'stacked', label: 'Stacked' }
                  ]}
                  onChange={(v) => setArrangement(v as SplitArrangement)}
                  testId="layout-selector"
                />
              )}
            </div>

            {noLines && (
              <div className="notice warning" data-testid="no-debug-info">
                <strong>Source lines are unavailable. </strong>
                {info.debugInfoHint ?? 'The program has no debug information: rebuild it with -g (e.g. gcc -g -O1) and trace again.'} The table
                below still lists every access point by instruction address.
              </div>
            )}

            {report && level && (() => {
              const table = (
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
                    exportTitle={`${baseName(info.program)}-run${report.run}-${level}-references`}
                    selectedId={s.selection?.reference ?? null}
                    selectedLine={s.selection && s.selection.line > 0 ? s.selection : null}
                    onActivate={(r) => s.select(r.file, r.line, r.id)}
                    threadsByReference={threadsByReference}
                  />
                </section>
              )
              if (noLines || !file) return <div className="panes">{table}</div>
              return (
                <SplitPanes
                  arrangement={arrangement}
                  storageKey="stride.sourceSplit"
                  testId="source-split"
                  first={<SourcePane session={info.path} report={report} file={file} level={level} metric={metric} deltas={deltas} />}
                  second={table}
                />
              )
            })()}
          </div>
        )}
        {/* ---- evictor graph and advisor ---- */}
        {s.tab === 'evictors' && report && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-evictors" aria-labelledby="tab-evictors">
            <EvictorGraphView report={report} />
          </div>
        )}
        {s.tab === 'advisor' && report && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-advisor" aria-labelledby="tab-advisor">
            <AdvisorView session={info.path} report={report} />
          </div>
        )}
        {s.tab === 'whatif' && report && (
          <div className="tab-panel scroll" role="tabpanel" id="tabpanel-whatif" aria-labelledby="tab-whatif">
            <WhatIfView report={report} />
          </div>
        )}
        {s.tab === 'compare' && report && level && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-compare" aria-labelledby="tab-compare">
            <CompareView info={info} report={compared ?? report} level={level} diff={compareDiff} />
          </div>
        )}
        {/* ---- data structures ---- */}
        {s.tab === 'objects' && report && level && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-objects" aria-labelledby="tab-objects">
            <ObjectsView session={info.path} report={report} level={level} threads={info.threads} />
          </div>
        )}
        {/* ---- query slices ---- */}
        {s.tab === 'query' && report && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-query" aria-labelledby="tab-query">
            <QueryView report={report} />
          </div>
        )}
        {/* ---- over time ---- */}
        {s.tab === 'timeline' && report && level && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-timeline" aria-labelledby="tab-timeline">
            <TimelineView report={report} level={level} accesses={info.runs.find((r) => r.run === report.run)?.accesses ?? null} />
          </div>
        )}
        {/* ---- threads ---- */}
        {s.tab === 'threads' && report && (
          <div className="tab-panel" role="tabpanel" id="tabpanel-threads" aria-labelledby="tab-threads">
            {(info.threads ?? 1) > 1 ? (
              <ThreadsView report={report} byReference={threadsByReference} />
            ) : (
              <p className="muted pad">This session has one thread: its accesses are the whole run.</p>
            )}
          </div>
        )}
      </main>
    </div>
  )
}

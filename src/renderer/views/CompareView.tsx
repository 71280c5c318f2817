/**
 * The current run against a baseline (the run a what-if came from, another run, or a run of
 * another session of the same program): level totals, then per line and per data structure
 * the change in misses and miss ratio. Clicking a line shows it in the source, painted by Δ.
 */
import type { RunReport, SessionInfo } from '../../shared/domain'
import { describeHierarchy } from '../../shared/run-labels'
import { DiffTable } from '../components/DiffTable'
import { baseName } from '../logic/format'
import type { RunDiff } from '../../shared/run-diff'
import { useRecent } from '../state/recent-store'
import { useSession } from '../state/session-store'

interface Props {
  info: SessionInfo
  /** The run compared: the active run, or a run a what-if added (not active until the user picks it). */
  report: RunReport
  level: string
  /** The run against the baseline (computed once by the session view, which also paints it). */
  diff: RunDiff | null
}

export function CompareView({ info, report, level, diff }: Props) {
  const s = useSession()
  const recent = useRecent((r) => r.items)
  const base = s.baselineReport
  const others = recent.filter((r) => r.exists && r.path !== info.path && baseName(r.program) === baseName(info.program))
  const sameSession = s.baseline?.session === info.path
  const value = !s.baseline ? '' : sameSession ? `run:${s.baseline.run}` : `session:${s.baseline.session}`
  const labelOf = (run: number): string | null => info.runs.find((r) => r.run === run)?.label ?? null
  const added = s.added !== null && s.added === report.run

  const choose = (v: string) => {
    if (v === '') void s.setBaseline(null)
    else if (v.startsWith('run:')) void s.setBaseline({ session: info.path, run: Number(v.slice(4)) })
    else void s.compareWithSession(v.slice(8))
  }

  return (
    <div className="compare" data-testid="compare-view">
      {added && (
        <div className="notice info run-added" data-testid="run-added">
          <span>
            Run {report.run} added: {labelOf(report.run) ?? describeHierarchy(report.config)} — run {s.run} stays active.
          </span>
          <button type="button" className="button small primary" onClick={() => void s.makeActive()} data-testid="make-active">
            Make active
          </button>
        </div>
      )}
      <div className="toolbar">
        <label className="field inline">
          <span>Compare run {report.run} with</span>
          <select value={value} onChange={(e) => choose(e.target.value)} data-testid="baseline-select">
            <option value="">choose a baseline…</option>
            <optgroup label="This session">
              {info.runs
                .filter((r) => r.run !== report.run)
                .map((r) => (
                  <option key={r.run} value={`run:${r.run}`}>
                    Run {r.run}: {r.label}
                  </option>
                ))}
            </optgroup>
            {others.length > 0 && (
              <optgroup label="Other sessions of this program (latest run)">
                {others.map((o) => (
                  <option key={o.path} value={`session:${o.path}`}>
                    {baseName(o.path)}
                  </option>
                ))}
              </optgroup>
            )}
            {s.baseline && !sameSession && !others.some((o) => o.path === s.baseline!.session) && (
              <option value={value}>{baseName(s.baseline.session)}</option>
            )}
          </select>
        </label>
        {s.baseline && base && (
          <span className="muted small" data-testid="baseline-config">
            baseline: {sameSession ? `run ${s.baseline.run}` : `${baseName(s.baseline.session)} run ${s.baseline.run}`} ·{' '}
            {(sameSession ? labelOf(s.baseline.run) : null) ?? describeHierarchy(base.config)}
          </span>
        )}
        <span className="muted small" data-testid="compared-label">
          run {report.run} · {labelOf(report.run) ?? describeHierarchy(report.config)}
        </span>
      </div>

      {s.baselineStatus === 'loading' && <p className="muted pad">Loading the baseline…</p>}
      {s.baselineStatus === 'error' && (
        <div className="notice error" role="alert">
          {s.baselineError}
        </div>
      )}
      {!s.baseline && (
        <div className="empty-state">
          <p>Pick a run to compare with, or run a what-if: its result opens here compared with the run it came from.</p>
        </div>
      )}

      {diff && (
        <>
          <div className="diff-totals" data-testid="diff-totals">
            {diff.levels.map((l) =>
              l.onlyIn ? (
                <div key={l.key} className="diff-total is-new" data-testid="diff-total" data-level={l.key} data-only-in={l.onlyIn}>
                  <span className="diff-total-name">{l.key} misses</span>
                  <span className="diff-total-value">{(l.onlyIn === 'current' ? l.misses : l.baseMisses).toLocaleString('en-US')}</span>
                  <span className="diff-total-delta muted" data-testid="diff-total-delta">
                    {l.onlyIn === 'current' ? 'new level: the baseline had none' : 'only in the baseline'}
                  </span>
                </div>
              ) : (
                <div key={l.key} className={`diff-total ${l.delta < 0 ? 'is-better' : l.delta > 0 ? 'is-worse' : ''}`} data-testid="diff-total" data-level={l.key}>
                  <span className="diff-total-name">{l.key} misses</span>
                  <span className="diff-total-value">
                    {l.baseMisses.toLocaleString('en-US')} → {l.misses.toLocaleString('en-US')}
                  </span>
                  <span className="diff-total-delta" data-testid="diff-total-delta">
                    {l.delta > 0 ? '+' : ''}
                    {l.delta.toLocaleString('en-US')}
                    {l.baseMisses > 0 ? ` (${l.delta > 0 ? '+' : ''}${((100 * l.delta) / l.baseMisses).toFixed(1)}%)` : ''}
                  </span>
                </div>
              )
            )}
          </div>
          {diff.levelMissingInBase && (
            <div className="notice info" data-testid="diff-level-missing">
              The baseline has no {level}: lines and data structures can be compared at a level both runs simulated (pick it above).
            </div>
          )}
          <div className="diff-tables">
            <DiffTable
              title={`Lines · ${level}`}
              rows={diff.lines}
              keyLabel="Line"
              testId="diff-lines"
              formatKey={(r) => (r.file && r.line !== null ? `${baseName(r.file)}:${r.line}` : r.key)}
              onActivate={(r) => {
                if (r.file === null || r.line === null) return
                s.select(r.file, r.line)
                s.setMetric('delta')
                s.setTab('source')
              }}
            />
            <DiffTable title={`Data structures · ${level}`} rows={diff.variables} keyLabel="Data structure" testId="diff-variables" formatKey={(r) => r.key} />
          </div>
        </>
      )}
    </div>
  )
}

/**
 * "Data structures" tab: which arrays and heap blocks cause the misses, computed four ways
 * (Buck's sampling and n-way search, Rutar's approximation from instruction samples) next to
 * the exact attribution, with each method's parameters, rank error and cost; for sessions of
 * several threads, the cache lines they share (SharedLinesPanel).
 */
import { useEffect, useMemo, useState } from 'react'
import type { RunReport } from '../../shared/domain'
import { ObjectsTable } from '../components/ObjectsTable'
import { SharedLinesPanel } from '../components/SharedLinesPanel'
import { ProgressReadout } from '../components/ProgressReadout'
import { Segmented } from '../components/Segmented'
import { formatCount } from '../logic/format'
import { absenceGroups, computeObjectsTable } from '../logic/objects-table'
import { objectsKey, useObjects, type ObjectsParams } from '../state/objects-store'
import { useSession } from '../state/session-store'

interface Props {
  session: string
  report: RunReport
  level: string
  /** The session's threads (SessionInfo.threads; null: unknown): the shared-lines panel shows for several. */
  threads?: number | null
}

function NumberField({ label, value, min, max, step, onChange, testId, disabled }: { label: string; value: number; min: number; max?: number; step?: number; onChange(v: number): void; testId: string; disabled?: boolean }) {
  return (
    <label className="field inline">
      <span>{label}</span>
      <input
        type="number"
        value={value}
        min={min}
        max={max}
        step={step ?? 1}
        disabled={disabled}
        data-testid={testId}
        onChange={(e) => {
          const v = Number(e.target.value)
          if (Number.isFinite(v) && v >= min && (max === undefined || v <= max)) onChange(v)
        }}
      />
    </label>
  )
}

export function ObjectsView({ session, report, level, threads }: Props) {
  const o = useObjects()
  const setLevel = useSession((s) => s.setLevel)
  const p = o.params
  const set = (x: Partial<ObjectsParams>) => o.setParams(x)
  const key = objectsKey(session, report.run, level)
  const current = o.key === key ? o.report : null
  const table = useMemo(() => (current ? computeObjectsTable(current) : null), [current])
  // Reasons are listed for the rows that matter (1%+ of the misses); every empty cell has its own in a tooltip.
  const explained = table ? table.rows.filter((r) => (r.exact?.fraction ?? 0) >= 0.01).map((r) => r.name) : []
  // Elapsed time ticks while the worker runs.
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    if (o.status !== 'running') return
    const t = setInterval(() => setNow(Date.now()), 250)
    return () => clearInterval(t)
  }, [o.status])
  const running = o.status === 'running' && o.key === key
  const elapsed = Math.max(0, now - o.startedAt)
  // The exact ranking as the tab opens: the trace stored it with its first run (an older
  // session's, or another run's, is counted in a pass the Stop of a newer ranking ends).
  useEffect(() => {
    if (o.key !== key) void o.compute(session, report.run, level, ['exact'])
  }, [key]) // eslint-disable-line react-hooks/exhaustive-deps
  const exactOnly = current !== null && current.methods.length === 0

  return (
    <div className="objects-view">
      <form
        className="objects-params"
        aria-label="Method parameters"
        onSubmit={(e) => {
          e.preventDefault()
          void o.compute(session, report.run, level)
        }}
      >
        <fieldset className="field-group">
          <legend>Sampling (Buck 2.1)</legend>
          <label className="field inline">
            <span>1 in N misses</span>
            <input
              type="number"
              min={1}
              value={p.sampleEvery ?? ''}
              placeholder="auto"
              title="Empty: scaled to the run, about 1,000 samples"
              data-testid="objects-sample-every"
              onChange={(e) => {
                const v = e.target.value.trim() === '' ? null : Math.round(Number(e.target.value))
                if (v === null || (Number.isFinite(v) && v >= 1)) set({ sampleEvery: v })
              }}
            />
          </label>
          <label className="field inline">
            <span>Interval</span>
            <select value={p.sampleInterval} onChange={(e) => set({ sampleInterval: e.target.value as ObjectsParams['sampleInterval'] })} data-testid="objects-interval">
              <option value="prime">prime (next prime ≥ N)</option>
              <option value="random">pseudo-random, mean N</option>
              <option value="regular">regular (may alias)</option>
            </select>
          </label>
        </fieldset>
        <fieldset className="field-group">
          <legend>n-way search (Buck 2.2)</legend>
          <NumberField label="Ways" value={p.ways} min={2} max={64} onChange={(v) => set({ ways: Math.round(v) })} testId="objects-ways" />
          <NumberField label="Stop below %" value={p.thresholdPercent} min={0} max={100} step={0.1} onChange={(v) => set({ thresholdPercent: v })} testId="objects-threshold" />
        </fieldset>
        <fieldset className="field-group">
          <legend>Approximate from instruction samples (Rutar 3)</legend>
          <NumberField label="1 sample per N misses" value={p.approxEvery} min={1} onChange={(v) => set({ approxEvery: Math.round(v) })} testId="objects-approx-every" />
          <NumberField label="Loop threshold" value={p.loopThreshold} min={0} max={1} step={0.05} onChange={(v) => set({ loopThreshold: v })} testId="objects-loop-threshold" />
          <label className="field inline check">
            <input type="checkbox" checked={p.skid} onChange={(e) => set({ skid: e.target.checked })} data-testid="objects-skid" />
            <span>Simulated skid</span>
          </label>
          <NumberField label="mean (lines)" value={p.skidMean} min={-10} max={10} step={0.5} disabled={!p.skid} onChange={(v) => set({ skidMean: v })} testId="objects-skid-mean" />
          <NumberField label="σ (lines)" value={p.skidSigma} min={0} max={10} step={0.1} disabled={!p.skid} onChange={(v) => set({ skidSigma: v })} testId="objects-skid-sigma" />
        </fieldset>
        <div className="objects-actions">
          {report.levels.length > 1 && (
            <Segmented label="Level" value={level} options={report.levels.map((l) => ({ value: l.name, label: l.name }))} onChange={setLevel} testId="objects-level" />
          )}
          <button type="submit" className="button primary" disabled={running} data-testid="objects-compute">
            {current && !exactOnly ? 'Recompute' : 'Compare methods'}
          </button>
          <span className="muted small">
            {exactOnly ? "Exact: every miss by the data structure its access touched, as the run counted it. " : ''}
            Comparing simulates run {report.run}'s hierarchy again over the trace and attributes every {level} miss; all methods share one pass.
          </span>
        </div>
      </form>

      {running && (
        <ProgressReadout
          progress={{
            jobId: 'objects',
            kind: 'simulate',
            phase: 'simulating',
            events: o.progress?.events ?? 0,
            total: o.progress?.total ?? null,
            eventsPerSecond: o.progress && elapsed > 0 ? Math.round((o.progress.events * 1000) / elapsed) : 0,
            elapsedMs: elapsed,
            message: 'ranking data structures'
          }}
        />
      )}
      {o.status === 'error' && o.key === key && (
        <div className="notice error" role="alert" data-testid="objects-error">
          {o.error}
        </div>
      )}

      {current && table && (
        <>
          <p className="small" data-testid="objects-summary">
            {formatCount(current.totalMisses)} {current.level} misses over {formatCount(current.accesses)} accesses (run {current.run}); exact pass {current.exact.cost.seconds.toFixed(2)} s. Shares are of all misses; #n is the rank
            {exactOnly ? '.' : '; orange: a rank that differs from exact; –: the method has no estimate for it (the reason is listed below the table).'}
          </p>
          <div className="objects-table-wrap">
            <ObjectsTable table={table} level={current.level} />
          </div>
          <h3 className="side-title">What each method saw</h3>
          <ul className="small objects-notes" data-testid="objects-coverage">
            <li>
              exact: {current.exact.coverage ?? 'the whole run'}
            </li>
            {table.methods.map((m) => (
              <li key={m.method} data-method={m.method}>
                {m.method}: {m.coverage ?? 'not reported'}
              </li>
            ))}
          </ul>
          {table.methods.some((m) => m.notes.length > 0 || absenceGroups(m, explained).length > 0) && (
            <ul className="small objects-notes" data-testid="objects-reasons">
              {table.methods.flatMap((m) => m.notes.map((n) => <li key={`${m.method}:${n}`}>{`${m.method}: ${n}`}</li>))}
              {table.methods.flatMap((m) =>
                absenceGroups(m, explained).map((g) => <li key={`${m.method}:absent:${g.reason}`}>{`${m.method} – ${g.names.join(', ')}: ${g.reason}`}</li>)
              )}
            </ul>
          )}
          <p className="small muted" data-testid="objects-perf">
            {current.perf.supported
              ? 'Hardware cache-miss samples (perf record) are available on this machine; the command line takes them with --source perf.'
              : `Hardware cache-miss samples (perf record): not supported on this machine: ${current.perf.reason}. The approximate methods use simulated misses.`}
          </p>
        </>
      )}
      {!current && !running && o.status !== 'error' && (
        <p className="muted pad" data-testid="objects-empty">
          Ranking the data structures of run {report.run} at {level}…
        </p>
      )}
      {(threads ?? 1) > 1 && <SharedLinesPanel session={session} lineSize={report.config.levels.find((l) => l.name === level)?.lineSize ?? 64} />}
    </div>
  )
}

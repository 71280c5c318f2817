/**
 * The source heatmap of the chosen file: fetch the text, derive per-line figures from the
 * report, and hand both to the (lazily loaded) Monaco view.
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react'
import type { RunReport } from '../../shared/domain'
import { HeatLegend } from '../components/HeatLegend'
import { LineInstructions } from '../components/LineInstructions'
import { LineStatsCard } from '../components/LineStatsCard'
import { Segmented } from '../components/Segmented'
import { computeHeat, nextHotLine } from '../logic/heat'
import { computeLineValues, computeReferencesByLine, heatMetricInfo, type HeatMetric } from '../logic/heat-metrics'
import { computeLineMetrics } from '../logic/line-metrics'
import { useSession } from '../state/session-store'
import { sourceKey, useSources } from '../state/source-store'
import { readChoice, writeChoice } from '../state/stored-choice'

type LineDetail = 'figures' | 'instructions'
const DETAIL_KEY = 'stride.lineDetail'
const DETAILS: readonly LineDetail[] = ['figures', 'instructions']

const SourceHeatmap = lazy(() => import('../components/SourceHeatmap'))

/** A Monaco model URI per session+file (a small hash keeps it URI-safe). */
function modelPathFor(session: string, file: string): string {
  let h = 2166136261
  for (const c of `${session}\n${file}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619)
  const name = file.split(/[\\/]/).pop() || 'source.c'
  return `file:///stride/${(h >>> 0).toString(16)}/${encodeURIComponent(name)}`
}

interface Props {
  session: string
  report: RunReport
  file: string
  level: string
  metric: HeatMetric
  /** Per-line Δ misses against the baseline (for the 'delta' paint). */
  deltas?: Map<number, number>
}

export function SourcePane({ session, report, file, level, metric, deltas }: Props) {
  const key = sourceKey(session, file)
  const entry = useSources((s) => s.entries[key])
  const load = useSources((s) => s.load)
  const selection = useSession((s) => s.selection)
  const select = useSession((s) => s.select)

  useEffect(() => load(session, file), [load, session, file])

  const metrics = useMemo(() => computeLineMetrics(report, file), [report, file])
  const showNoise = useSession((s) => s.showNoise)
  const setShowNoise = useSession((s) => s.setShowNoise)
  const { heat, hiddenNoise } = useMemo(() => {
    // Start of a repaint (bench/ui/heatmap.mjs reads the stride:heat-repaint measure).
    performance.mark('stride:heat-start')
    const values = computeLineValues(report, file, level, metric, deltas)
    // A line the traced code touched once (a `}` reading its return address) is noise: its
    // ratios and shares are 0 or 100% by construction. Left unpainted unless asked for.
    let hidden = 0
    if (!showNoise)
      for (const [line, v] of values) {
        const m = metrics.get(line)
        if (m && m.reads + m.writes <= 1 && v !== 0) {
          values.delete(line)
          hidden++
        }
      }
    const info = heatMetricInfo(metric)
    const h = computeHeat(values, metric === 'delta', info.fraction ? 'linear' : 'log')
    performance.measure('stride:heat-compute', 'stride:heat-start')
    return { heat: h, hiddenNoise: hidden }
  }, [report, file, level, metric, deltas, showNoise, metrics])
  const referencesByLine = useMemo(() => computeReferencesByLine(report, file), [report, file])

  const selectedHere = selection && selection.file === file && selection.line > 0 ? selection : null
  const current = selectedHere?.line ?? null
  const jump = useCallback(
    (direction: 1 | -1) => {
      const line = nextHotLine(heat, current, direction)
      if (line !== null) select(file, line)
    },
    [heat, current, select, file]
  )

  // n / Shift+N (and F8 / Shift+F8, as in editors) walk the lines from the hottest down.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null
      const typing = t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')
      if (typing || e.ctrlKey || e.metaKey || e.altKey) return
      if (e.key === 'n' || e.key === 'N' || e.key === 'F8') {
        e.preventDefault()
        jump(e.shiftKey ? -1 : 1)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [jump])
  const selectedMetric = selectedHere ? metrics.get(selectedHere.line) : undefined
  // A pinned line shows its figures, or its instructions (the choice is remembered).
  const [detail, setDetail] = useState<LineDetail>(() => readChoice(DETAIL_KEY, DETAILS, 'figures'))
  useEffect(() => writeChoice(DETAIL_KEY, detail), [detail])

  return (
    <section className="source-pane" aria-label="Source">
      <div className="pane-header">
        <h3 className="pane-title" title={file}>
          {file}
        </h3>
        <div className="pane-tools">
          <button type="button" className="button small" onClick={() => jump(-1)} disabled={heat.order.length === 0} title="Previous hottest line (Shift+N)" aria-label="Previous hottest line">
            ↑
          </button>
          <button type="button" className="button small" onClick={() => jump(1)} disabled={heat.order.length === 0} title="Next hottest line (N or F8)" data-testid="next-hottest">
            Next hottest ↓
          </button>
        </div>
      </div>
      <div className="legend-row">
        <HeatLegend max={heat.max} metric={heatMetricInfo(metric)} level={level} scale={heat.scale} signed={heat.signed} hiddenNoise={hiddenNoise} />
        <label className="field inline small" title="Lines the traced code touched once (e.g. a closing brace reading its return address)">
          <input type="checkbox" checked={showNoise} onChange={(e) => setShowNoise(e.target.checked)} data-testid="show-noise" />
          <span>Single-access lines</span>
        </label>
      </div>
      <div className="source-body">
        {!entry || entry.status === 'loading' ? (
          <p className="muted pad">Loading source…</p>
        ) : entry.status === 'error' ? (
          <div className="notice warning pad" role="alert" data-testid="source-error">
            Source not available: {entry.error}
          </div>
        ) : (
          <Suspense fallback={<p className="muted pad">Loading editor…</p>}>
            <SourceHeatmap
              modelPath={modelPathFor(session, file)}
              file={file}
              text={entry.source.text}
              metrics={metrics}
              heat={heat}
              level={level}
              referencesByLine={referencesByLine}
              selection={selectedHere}
              onSelectLine={(line) => select(file, line)}
            />
          </Suspense>
        )}
      </div>
      <div className="line-details" data-testid="line-details" aria-live="polite">
        {selectedMetric ? (
          <>
            <Segmented
              label="Pinned line"
              value={detail}
              options={[
                { value: 'figures', label: 'Figures' },
                { value: 'instructions', label: 'Instructions' }
              ]}
              onChange={(v) => setDetail(v as LineDetail)}
              testId="line-detail"
            />
            {detail === 'figures' ? (
              <LineStatsCard metric={selectedMetric} references={referencesByLine.get(selectedMetric.line) ?? []} activeLevel={level} />
            ) : (
              <LineInstructions references={referencesByLine.get(selectedMetric.line) ?? []} levels={report.levels.map((l) => l.name)} activeLevel={level} />
            )}
          </>
        ) : (
          <p className="muted small">Hover a painted line for its figures; click it or a table row to pin them here.</p>
        )}
      </div>
    </section>
  )
}

/**
 * The source heatmap of the chosen file: fetch the text, derive per-line figures from the
 * report, and hand both to the (lazily loaded) Monaco view.
 */
import { lazy, Suspense, useEffect, useMemo } from 'react'
import type { ReferenceStats, RunReport } from '../../shared/domain'
import { HeatLegend } from '../components/HeatLegend'
import { LineStatsCard } from '../components/LineStatsCard'
import { computeHeat } from '../logic/heat'
import { computeLineMetrics, lineMetricValue, type HeatMetric } from '../logic/line-metrics'
import { useSession } from '../state/session-store'
import { sourceKey, useSources } from '../state/source-store'

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
}

export function SourcePane({ session, report, file, level, metric }: Props) {
  const key = sourceKey(session, file)
  const entry = useSources((s) => s.entries[key])
  const load = useSources((s) => s.load)
  const selection = useSession((s) => s.selection)
  const select = useSession((s) => s.select)

  useEffect(() => load(session, file), [load, session, file])

  const metrics = useMemo(() => computeLineMetrics(report, file), [report, file])
  const heat = useMemo(() => {
    const values = new Map<number, number>()
    for (const [line, m] of metrics) values.set(line, lineMetricValue(m, level, metric))
    return computeHeat(values)
  }, [metrics, level, metric])
  const referencesByLine = useMemo(() => {
    const by = new Map<number, ReferenceStats[]>()
    for (const r of report.references) {
      if (r.file !== file || r.line === null) continue
      by.set(r.line, [...(by.get(r.line) ?? []), r])
    }
    return by
  }, [report, file])

  const selectedHere = selection && selection.file === file && selection.line > 0 ? selection : null
  const selectedMetric = selectedHere ? metrics.get(selectedHere.line) : undefined

  return (
    <section className="source-pane" aria-label="Source">
      <div className="pane-header">
        <h3 className="pane-title" title={file}>
          {file}
        </h3>
        <HeatLegend max={heat.max} metric={metric} level={level} />
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
          <LineStatsCard metric={selectedMetric} references={referencesByLine.get(selectedMetric.line) ?? []} activeLevel={level} />
        ) : (
          <p className="muted small">Hover a painted line for its figures; click it or a table row to pin them here.</p>
        )}
      </div>
    </section>
  )
}

/**
 * Misses over time per data structure at the chosen level, from the run's stored timeline
 * (no re-simulation): which structure misses when, and whether a phase of the program is
 * where the misses come from.
 */
import { useEffect, useMemo, useRef, useState } from 'react'
import type { RunReport } from '../../shared/domain'
import { TimelineChart } from '../components/TimelineChart'
import { computeDataNames } from '../logic/data-names'
import { formatCount } from '../logic/format'
import { computeTimeline } from '../logic/timeline'

/** The element's content width, followed as it resizes. */
function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const ro = new ResizeObserver(() => setWidth(el.clientWidth))
    ro.observe(el)
    setWidth(el.clientWidth)
    return () => ro.disconnect()
  }, [])
  return [ref, width]
}

/** `accesses`: the run's (its summary's), said as the runs list and the session say it; the steps' span is their whole intervals. */
export function TimelineView({ report, level, accesses }: { report: RunReport; level: string; accesses: number | null }) {
  const names = useMemo(() => computeDataNames(report), [report])
  const model = useMemo(() => computeTimeline(report, level, names), [report, level, names])
  const [box, width] = useWidth()
  const levels = (report.timelines ?? []).map((t) => t.level)
  return (
    <div className="timeline-view" ref={box} data-testid="timeline-view">
      {model ? (
        <>
          <p className="muted small" data-testid="timeline-summary">
            {model.level}: {formatCount(model.series.reduce((s, x) => s + x.total, 0))} misses over {formatCount(accesses ?? model.count * model.interval)} accesses in {model.count} steps of {formatCount(model.interval)};{' '}
            {model.structures} data structure{model.structures === 1 ? '' : 's'} missed
            {model.structures > model.series.length ? `, the ${model.series.length - 1} with most misses drawn apart` : ''}.
          </p>
          {width > 0 && <TimelineChart model={model} width={Math.max(320, width - 250)} height={Math.max(220, Math.min(420, Math.round(width * 0.3)))} />}
        </>
      ) : (
        <p className="muted pad" data-testid="timeline-none">
          {levels.length > 0 ? `This run keeps its timeline at ${levels.join(', ')}, not at ${level}: pick that level above.` : 'This run keeps no miss timeline (a run without per-level metrics). Run a what-if to simulate one with it.'}
        </p>
      )}
    </div>
  )
}

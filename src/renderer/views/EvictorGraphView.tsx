/**
 * The evictor graph tab: which references (or variables) evict which at one level, with its
 * cycles, each labelled by what causes its misses as the Advisor decides it (the same rule,
 * `shared/miss-causes.ts`: a conflict only when the set mapping causes most of them). Clicking a node (or its entry in the lists,
 * by keyboard) selects its line for the source view and the table and shows its evictors
 * beside the graph; double-click or "Show in source" goes to the source tab.
 * Readable at any size (issue 48): grouped by data structure by default (a data structure can be
 * expanded into its references, or the toggle shows references throughout), only the top
 * EVICTOR_TOP_N nodes by misses until "Show more"/"Show all", weak edges thin and unlabelled.
 */
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react'
import type { RunReport } from '../../shared/domain'
import { DataTable, type DataColumn } from '../components/DataTable'
import { downloadBlob, downloadText } from '../components/download'
import type { EvictorGraphHandle } from '../components/EvictorGraphCanvas'
import { Segmented } from '../components/Segmented'
import { useIsDark } from '../components/use-color-scheme'
import { groupCause, type MissCause } from '../../shared/miss-causes'
import {
  computeEvictorGraph,
  cycleLabel,
  cycleReferences,
  edgeLabel,
  EVICTOR_TOP_N,
  evictorEdgesCsv,
  evictorGraphJson,
  nextLimit,
  shortLabel,
  WEAK_EDGE,
  type EvictorGraphMode,
  type EvictorNode
} from '../logic/evictor-graph'
import { computeDataNames } from '../logic/data-names'
import { formatCount } from '../logic/format'
import { adviceLevel, useAdvice } from '../state/advice-store'
import { evictorViewFor, useEvictorView } from '../state/evictor-view-store'
import { useSession } from '../state/session-store'

const CAUSE_LABEL: Record<MissCause, string> = {
  conflict: 'conflict misses (set mapping)',
  capacity: 'capacity misses (does not fit)',
  'first-touch': 'first-touch misses',
  mixed: 'mixed causes'
}

const MODES: { value: EvictorGraphMode; label: string }[] = [
  { value: 'variable', label: 'Data structures' },
  { value: 'reference', label: 'References' }
]
const NO_EXPANDED: ReadonlySet<string> = new Set()
// cytoscape + fcose load with the tab, not with the app.
const EvictorGraphCanvas = lazy(() => import('../components/EvictorGraphCanvas').then((m) => ({ default: m.EvictorGraphCanvas })))
const NONE: string[] = []
/** Every node, for keyboard users and to find one by name (the table is virtualized). */
const NODE_COLUMNS: DataColumn<EvictorNode>[] = [
  { key: 'label', label: 'Node', type: 'text', className: 'mono', sortValue: (n) => n.label, filterText: (n) => `${n.label} ${n.location ?? ''}`, cell: (n) => <span title={n.label}>{shortLabel(n.label, 32)}</span> },
  { key: 'misses', label: 'Misses', type: 'number', numeric: true, sortValue: (n) => n.misses, cell: (n) => formatCount(n.misses) }
]

interface Props {
  report: RunReport
}

export function EvictorGraphView({ report }: Props) {
  const s = useSession()
  const dark = useIsDark()
  const canvas = useRef<EvictorGraphHandle>(null)
  const cacheLevels = report.config.levels.map((l) => l.name)
  const level = adviceLevel(report.config, s.level)
  // Node kind, expanded data structures and node count outlive a trip to the source tab.
  const viewKey = `${s.path ?? ''}\0${report.run}`
  const view = useEvictorView()
  const { mode, expanded, limit } = evictorViewFor(view, viewKey)
  const setExpanded = (e: ReadonlySet<string>) => view.set(viewKey, { expanded: e })
  const setLimit = (n: number) => view.set(viewKey, { limit: n })
  const [thresholdPct, setThresholdPct] = useState(5)
  const [selected, setSelected] = useState<string | null>(null)
  // The highlighted cycle, by its members (indexes change as the threshold moves).
  const [cycle, setCycle] = useState<string | null>(null)

  const names = useMemo(() => computeDataNames(report), [report])
  const graph = useMemo(
    () => computeEvictorGraph(report, { level, mode, threshold: thresholdPct / 100, expanded, limit, names }),
    [report, level, mode, thresholdPct, expanded, limit, names]
  )
  const variableOf = useMemo(() => new Map(report.references.map((r) => [r.id, r.variable ?? 'unknown'])), [report])
  // The Advisor's miss classes (a replay of the trace in the backend) say what each cycle is.
  const advice = useAdvice()
  useEffect(() => {
    if (s.path && level) void advice.load(s.path, report.run, level)
  }, [s.path, report.run, level]) // eslint-disable-line react-hooks/exhaustive-deps
  const classes = advice.status === 'ready' && advice.advice?.run === report.run && advice.advice.level === level ? (advice.advice.classes ?? null) : undefined
  const causeOf = (c: (typeof graph.cycles)[number]) => (classes === undefined ? undefined : groupCause(cycleReferences(c, report, mode), classes))
  const node = graph.nodes.find((n) => n.id === selected) ?? null
  const highlighted = useMemo(() => graph.cycles.find((c) => c.nodes.join() === cycle)?.nodes ?? NONE, [graph, cycle])
  const base = `stride-evictors-run${report.run}-${level}-${mode}`

  const choose = (id: string) => {
    setSelected(id)
    const n = graph.nodes.find((x) => x.id === id)
    if (n && n.kind !== 'pseudo') s.select(n.file, n.line, n.kind === 'reference' ? n.id : null)
  }
  const open = (id: string) => {
    choose(id)
    s.setTab('source')
  }
  const setModeAndClear = (m: EvictorGraphMode) => {
    view.set(viewKey, { mode: m, expanded: NO_EXPANDED, limit: EVICTOR_TOP_N })
    setSelected(null)
    setCycle(null)
  }
  /** Draw a data structure as its references (on) or as one node again (off). */
  const toggleExpanded = (variable: string, on: boolean) => {
    const next = new Set(expanded)
    if (on) next.add(variable)
    else next.delete(variable)
    setExpanded(next)
    setSelected(null)
    setCycle(null)
  }
  const expandedOf = node && node.kind === 'reference' && mode === 'variable' ? variableOf.get(node.id) : undefined

  return (
    <div className="evictor-view" data-testid="evictor-view">
      <div className="toolbar">
        <Segmented label="Nodes" value={mode} options={MODES} onChange={setModeAndClear} testId="evictor-mode" />
        {cacheLevels.length > 1 && (
          <Segmented label="Cache level" value={level} options={cacheLevels.map((l) => ({ value: l, label: l }))} onChange={s.setLevel} testId="evictor-level" />
        )}
        <label className="field inline evictor-threshold">
          <span>Hide edges under</span>
          <input
            type="range"
            min={0}
            max={50}
            step={1}
            value={thresholdPct}
            onChange={(e) => setThresholdPct(Number(e.target.value))}
            aria-valuetext={`${thresholdPct}% of the evictee's evictions`}
            data-testid="evictor-threshold"
          />
          <output className="num">{thresholdPct}%</output>
        </label>
        <span className="muted small" data-testid="evictor-counts">
          {graph.nodes.length}
          {graph.hiddenNodes > 0 && ` of ${graph.totalNodes}`} nodes · {graph.edges.length} edges
          {graph.hiddenEdges > 0 && ` · ${graph.hiddenEdges} hidden`}
          {graph.isolatedNodes > 0 && ` · ${graph.isolatedNodes} without edges`}
        </span>
        {graph.hiddenNodes > 0 && (
          <>
            <button type="button" className="button small" data-testid="evictor-show-more" onClick={() => setLimit(nextLimit(limit, graph.totalNodes))}>
              Show more
            </button>
            <button type="button" className="button small" data-testid="evictor-show-all" onClick={() => setLimit(Infinity)}>
              Show all
            </button>
          </>
        )}
        {limit > EVICTOR_TOP_N && graph.totalNodes > EVICTOR_TOP_N && (
          <button type="button" className="button small" data-testid="evictor-show-fewer" onClick={() => setLimit(EVICTOR_TOP_N)}>
            Top {EVICTOR_TOP_N}
          </button>
        )}
        <span className="toolbar-spacer" />
        <button type="button" className="button small" onClick={() => canvas.current?.fit()}>
          Fit
        </button>
        <button type="button" className="button small" data-testid="evictor-export-png" onClick={() => void canvas.current?.png().then((b) => downloadBlob(b, `${base}.png`))}>
          PNG
        </button>
        <button type="button" className="button small" data-testid="evictor-export-svg" onClick={() => canvas.current && downloadText(canvas.current.svg(), `${base}.svg`, 'image/svg+xml')}>
          SVG
        </button>
        <button type="button" className="button small" data-testid="evictor-export-csv" onClick={() => downloadText(evictorEdgesCsv(graph), `${base}.csv`, 'text/csv')}>
          CSV
        </button>
        <button type="button" className="button small" data-testid="evictor-export-json" onClick={() => downloadText(evictorGraphJson(graph), `${base}.json`, 'application/json')}>
          JSON
        </button>
      </div>

      {graph.nodes.length === 0 ? (
        <div className="empty-state" data-testid="evictor-empty">
          <p>No evictions at {level}{thresholdPct > 0 ? ` above ${thresholdPct}%` : ''}.</p>
          <p className="muted small">Every line the traced references brought in stayed in the cache, or this run was stored without evictor counts.</p>
        </div>
      ) : (
        <div className="evictor-body">
          <Suspense fallback={<div className="evictor-canvas muted pad">Loading the graph view…</div>}>
            <EvictorGraphCanvas ref={canvas} graph={graph} selected={selected} highlighted={highlighted} dark={dark} onSelect={choose} onOpen={open} />
          </Suspense>
          <aside className="evictor-side">
            <div className="muted small evictor-legend" data-testid="evictor-legend">
              <p>
                Arrow: evictor → evictee, labelled with its share of the evictee&apos;s evictions. Size: misses. <span className="danger-text">Red</span>: in a cycle.
              </p>
              <ul className="evictor-legend-edges" aria-label="Edge widths">
                <li>
                  <svg width="36" height="8" aria-hidden="true">
                    <line x1="0" y1="4" x2="36" y2="4" className="legend-edge" strokeWidth="5" />
                  </svg>{' '}
                  100% of the evictee&apos;s evictions
                </li>
                <li>
                  <svg width="36" height="8" aria-hidden="true">
                    <line x1="0" y1="4" x2="36" y2="4" className="legend-edge" strokeWidth="2.2" />
                  </svg>{' '}
                  {Math.round(WEAK_EDGE * 100)}%
                </li>
                <li>
                  <svg width="36" height="8" aria-hidden="true">
                    <line x1="0" y1="4" x2="36" y2="4" className="legend-edge weak" strokeWidth="1" />
                  </svg>{' '}
                  under {Math.round(WEAK_EDGE * 100)}%: faint, no label
                </li>
                <li>under {thresholdPct}%: hidden (the slider)</li>
              </ul>
              <p>
                {mode === 'variable' ? 'Nodes are data structures; select one to show its references.' : 'Nodes are references.'} The {graph.nodes.length} with the most misses
                are shown{graph.hiddenNodes > 0 ? `; ${graph.hiddenNodes} more with Show more` : ''}. Hover a node for its full name.
              </p>
            </div>
            <section aria-label="Cycles">
              <h3 className="side-title">Cycles of evictors</h3>
              <p className="muted small" data-testid="evictor-cycle-rule">
                A cycle says who replaces whom. It is a conflict only when a fully associative {level} of the same size would have hit most of its misses (the Advisor&apos;s rule).
              </p>
              {graph.cycles.length === 0 ? (
                <p className="muted small">No cycles among the shown edges.</p>
              ) : (
                <ul className="evictor-cycles" data-testid="evictor-cycles">
                  {graph.cycles.map((c) => (
                    <li key={c.nodes.join()}>
                      <button
                        type="button"
                        className={`evictor-cycle ${cycle === c.nodes.join() ? 'is-on' : ''}`}
                        aria-pressed={cycle === c.nodes.join()}
                        data-testid="evictor-cycle"
                        onClick={() => setCycle(cycle === c.nodes.join() ? null : c.nodes.join())}
                      >
                        <span className="evictor-cycle-label">{cycleLabel(c)}</span>
                        <span className="muted small">
                          {c.nodes.length} nodes · {formatCount(c.evictions)} evictions · {formatCount(c.misses)} misses
                        </span>
                        <CycleCause cause={causeOf(c)} />
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </section>

            {node && (
              <section aria-label="Selected node" className="evictor-node" data-testid="evictor-node">
                <h3 className="side-title">{node.label}</h3>
                <p className="small">
                  {node.location ?? 'no source line'} · {formatCount(node.misses)} misses of {formatCount(node.accesses)}
                  {node.cycle !== null && <strong className="danger-text"> · in cycle {node.cycle + 1}</strong>}
                </p>
                <EdgeList title="Evicted by" edges={graph.edges.filter((e) => e.target === node.id).map((e) => ({ id: e.source, fraction: e.fraction, count: e.count }))} onPick={choose} />
                <EdgeList title="Evicts" edges={graph.edges.filter((e) => e.source === node.id).map((e) => ({ id: e.target, fraction: e.fraction, count: e.count }))} onPick={choose} />
                {node.kind === 'variable' && mode === 'variable' && (
                  <button type="button" className="button small" data-testid="evictor-expand" onClick={() => toggleExpanded(node.id, true)}>
                    Show its references
                  </button>
                )}
                {expandedOf !== undefined && expanded.has(expandedOf) && (
                  <button type="button" className="button small" data-testid="evictor-collapse" onClick={() => toggleExpanded(expandedOf, false)}>
                    Group into {expandedOf}
                  </button>
                )}
                {node.kind !== 'pseudo' && node.line !== null && (
                  <button type="button" className="button small" data-testid="evictor-show-source" onClick={() => open(node.id)}>
                    Show in source
                  </button>
                )}
              </section>
            )}

            <section aria-label="Nodes">
              <h3 className="side-title">Nodes</h3>
              <DataTable
                rows={graph.nodes}
                columns={NODE_COLUMNS}
                rowKey={(n) => n.id}
                defaultSort={{ key: 'misses', dir: 'desc' }}
                label="Evictor graph nodes"
                testId="evictor-nodes"
                rowTestId="evictor-node-button"
                noun="nodes"
                className="reference-table evictor-nodes"
                activeKey={selected}
                onActivate={(n) => choose(n.id)}
                onOpen={(n) => open(n.id)}
                rowAttributes={(n) => ({
                  className: `${n.id === selected ? 'is-selected' : ''} ${n.cycle !== null ? 'cyclic' : ''}`,
                  'aria-selected': n.id === selected,
                  'data-node': n.id
                })}
              />
            </section>
          </aside>
        </div>
      )}
    </div>
  )
}

function EdgeList({ title, edges, onPick }: { title: string; edges: Array<{ id: string; fraction: number; count: number }>; onPick(id: string): void }) {
  if (edges.length === 0) return null
  return (
    <div className="evictor-edges">
      <span className="muted small">{title}</span>
      <ul>
        {edges.map((e) => (
          <li key={e.id}>
            <button type="button" className="link-button" onClick={() => onPick(e.id)}>
              {e.id}
            </button>{' '}
            <span className="small">
              {edgeLabel(e.fraction)} ({formatCount(e.count)})
            </span>
          </li>
        ))}
      </ul>
    </div>
  )
}

/** What causes a cycle's misses: undefined while the Advisor's classes load, null when unknown. */
function CycleCause({ cause }: { cause: ReturnType<typeof groupCause> | undefined }) {
  if (cause === undefined) return <span className="muted small">checking the set mapping…</span>
  if (cause === null) return <span className="muted small">cause unknown (no miss classes for these nodes)</span>
  const all = cause.conflict + cause.capacity + cause.compulsory
  return (
    <span className={`small ${cause.cause === 'conflict' ? 'danger-text' : 'muted'}`} data-testid="evictor-cycle-cause" data-cause={cause.cause}>
      {CAUSE_LABEL[cause.cause]}: {Math.round((100 * cause.conflict) / all)}% conflict, {Math.round((100 * cause.capacity) / all)}% capacity, {Math.round((100 * cause.compulsory) / all)}% first touch
    </span>
  )
}

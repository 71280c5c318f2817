/**
 * Draws an evictor graph (logic/evictor-graph.ts) with cytoscape and the fcose layout. Only
 * draws: nodes sized by misses, edges evictor -> evictee labelled with METRIC's percentage,
 * cycles in the danger colour. Colours come from the page's CSS tokens, so both themes read.
 * After each layout the container carries `data-layout-ms`, the nodes' rendered centres
 * (`data-node-positions`), their labels' rendered boxes (`data-label-boxes`) and the zoom
 * (`data-zoom`), which the e2e tests read to time the layout, click a node and check labels.
 * The layout is deterministic: fcose runs on a PRNG seeded from the graph's ids, so the same
 * session draws the same picture after a reload; nodes already on screen keep their place.
 * Hovering a node puts its full name (labels are truncated) in the canvas's tooltip.
 */
import cytoscape, { type Core } from 'cytoscape'
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react'
import { graphSeed, seededRandom, type EvictorGraph } from '../logic/evictor-graph'
import { evictorGraphSvg } from '../logic/evictor-graph-svg'
import { evictorElements, evictorLayoutOptions, evictorStylesheet, token } from './evictor-graph-style'

const MAX_FIT_ZOOM = 1.2
/** Below this zoom the 13 px labels drop under 11 px: a fit stops here (pan for the rest). */
const MIN_FIT_ZOOM = 0.85

/** Fit the graph, but keep labels at reading size: never blown up, never shrunk past legibility. */
function readableFit(c: Core): void {
  c.resize() // the pane may have changed size since cytoscape last measured it
  c.fit(undefined, 40)
  const z = c.zoom()
  if (z > MAX_FIT_ZOOM || z < MIN_FIT_ZOOM) {
    c.zoom(Math.min(MAX_FIT_ZOOM, Math.max(MIN_FIT_ZOOM, z)))
    c.center()
  }
}

/** Runs `fn` with Math.random replaced by a seeded PRNG (fcose and cose-base draw on it). */
function withSeed<T>(seed: number, fn: () => T): T {
  const original = Math.random
  Math.random = seededRandom(seed)
  try {
    return fn()
  } finally {
    Math.random = original
  }
}

export interface EvictorGraphHandle {
  /** The graph as drawn, as a PNG (2x, on the theme's background). */
  png(): Promise<Blob>
  /** The graph as laid out, as a standalone SVG document. */
  svg(): string
  fit(): void
}

interface Props {
  graph: EvictorGraph
  selected: string | null
  /** Node ids to emphasise (the chosen cycle). */
  highlighted: string[]
  dark: boolean
  onSelect(id: string): void
  onOpen(id: string): void
  ref?: Ref<EvictorGraphHandle>
}

export function EvictorGraphCanvas({ graph, selected, highlighted, dark, onSelect, onOpen, ref }: Props) {
  const container = useRef<HTMLDivElement>(null)
  const cy = useRef<Core | null>(null)
  const handlers = useRef({ onSelect, onOpen })
  handlers.current = { onSelect, onOpen }

  useEffect(() => {
    const c = cytoscape({ container: container.current, style: evictorStylesheet(), wheelSensitivity: 0.3, minZoom: 0.1, maxZoom: 4, boxSelectionEnabled: false })
    c.on('tap', 'node', (e) => handlers.current.onSelect(e.target.id()))
    c.on('dbltap', 'node', (e) => handlers.current.onOpen(e.target.id()))
    c.on('mouseover', 'node', (e) => container.current?.setAttribute('title', String(e.target.data('full'))))
    c.on('mouseout', 'node', () => container.current?.removeAttribute('title'))
    const publish = () => {
      const positions: Record<string, [number, number]> = {}
      const labels: Record<string, [number, number, number, number]> = {}
      c.nodes().forEach((n) => {
        const p = n.renderedPosition()
        positions[n.id()] = [Math.round(p.x), Math.round(p.y)]
        const b = n.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false })
        labels[n.id()] = [Math.round(b.x1), Math.round(b.y1), Math.round(b.x2), Math.round(b.y2)]
      })
      const el = container.current
      el?.setAttribute('data-node-positions', JSON.stringify(positions))
      el?.setAttribute('data-label-boxes', JSON.stringify(labels))
      el?.setAttribute('data-zoom', c.zoom().toFixed(3))
    }
    c.on('viewport layoutstop', publish)
    cy.current = c
    // The pane follows the window and the side panel: keep cytoscape's idea of its size current.
    const resized = new ResizeObserver(() => c.resize())
    resized.observe(container.current!)
    return () => {
      resized.disconnect()
      c.destroy()
      cy.current = null
    }
  }, [])

  useEffect(() => {
    cy.current?.style(evictorStylesheet())
  }, [dark])

  useEffect(() => {
    const c = cy.current
    if (!c) return
    const el = container.current!
    el.setAttribute('data-layout-state', 'running')
    // Nodes already on screen keep their place (moving the threshold slider must not
    // reshuffle the picture); only a graph with new nodes is laid out again.
    const before = new Map(c.nodes().map((n) => [n.id(), { ...n.position() }] as const))
    const known = graph.nodes.filter((n) => before.has(n.id)).length
    const fresh = known < graph.nodes.length / 2
    // Deterministic starting places: a fresh layout owes nothing to what was drawn before (the
    // same graph, the same picture); an incremental one keeps known nodes where they were and
    // starts new ones on a ring around them in rank order.
    const placed = fresh ? new Map<string, { x: number; y: number }>() : before
    const xs = [...placed.values()].map((p) => p.x)
    const ys = [...placed.values()].map((p) => p.y)
    const cx = xs.length ? (Math.min(...xs) + Math.max(...xs)) / 2 : 0
    const cy0 = ys.length ? (Math.min(...ys) + Math.max(...ys)) / 2 : 0
    const ring = 140 + (xs.length ? Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)) / 2 : 0)
    const added = graph.nodes.filter((n) => !placed.has(n.id)).map((n) => n.id)
    const start = new Map(added.map((id, i) => [id, { x: cx + ring * Math.cos((2 * Math.PI * i) / added.length), y: cy0 + ring * Math.sin((2 * Math.PI * i) / added.length) }]))
    c.elements().remove()
    const els = evictorElements(graph).map((e) => (e.group === 'nodes' ? { ...e, position: placed.get(e.data.id!) ?? start.get(e.data.id!)! } : e))
    c.add(els)
    if (graph.nodes.length > 0 && known === graph.nodes.length) {
      el.setAttribute('data-layout-state', 'done')
      c.emit('layoutstop') // positions for the tests and the node list are current
      return
    }
    const started = performance.now()
    const layout = c.layout({ ...evictorLayoutOptions(graph.nodes.length), randomize: fresh, fit: false } as cytoscape.LayoutOptions)
    layout.one('layoutstop', () => {
      // Fit, keeping labels at reading size (a handful of nodes is not blown up either).
      readableFit(c)
      el.setAttribute('data-layout-ms', String(Math.round(performance.now() - started)))
      el.setAttribute('data-layout-state', 'done')
      c.emit('layoutstop')
    })
    // Synchronous (no animation), so the seeded Math.random is in place for the whole run.
    withSeed(graphSeed(graph), () => layout.run())
  }, [graph])

  useEffect(() => {
    const c = cy.current
    if (!c) return
    c.batch(() => {
      c.elements().removeClass('chosen dimmed')
      if (selected) c.getElementById(selected).addClass('chosen')
      if (highlighted.length > 0) {
        const keep = new Set(highlighted)
        c.nodes().forEach((n) => {
          if (!keep.has(n.id())) n.addClass('dimmed')
        })
        c.edges().forEach((e) => {
          if (!keep.has(e.source().id()) || !keep.has(e.target().id())) e.addClass('dimmed')
        })
      }
    })
  }, [selected, highlighted, graph])

  useImperativeHandle(ref, () => ({
    png: () => cy.current!.png({ output: 'blob-promise', full: true, scale: 2, bg: token('--surface', '#ffffff') }),
    svg: () => {
      const positions = new Map(cy.current!.nodes().map((n) => [n.id(), { ...n.position() }] as const))
      return evictorGraphSvg(graph, positions, {
        background: token('--surface', '#ffffff'),
        text: token('--text', '#1d2025'),
        node: token('--accent', '#2f5fd0'),
        cycle: token('--danger', '#b42318'),
        edge: token('--muted', '#626a76')
      })
    },
    fit: () => {
      const c = cy.current
      if (c) readableFit(c)
    }
  }))

  return (
    <div
      ref={container}
      className="evictor-canvas"
      data-testid="evictor-canvas"
      data-node-count={graph.nodes.length}
      role="img"
      aria-label={`Evictor graph at ${graph.level}: ${graph.nodes.length} nodes, ${graph.edges.length} edges, ${graph.cycles.length} cycles. The lists beside it give the same information.`}
    />
  )
}

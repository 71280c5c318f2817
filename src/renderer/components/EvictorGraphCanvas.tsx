/**
 * Draws an evictor graph (logic/evictor-graph.ts) with cytoscape and the fcose layout. Only
 * draws: nodes sized by misses, edges evictor -> evictee labelled with METRIC's percentage,
 * cycles in the danger colour. Colours come from the page's CSS tokens, so both themes read.
 * After each layout the container carries `data-layout-ms` and the nodes' rendered centres
 * (`data-node-positions`), which the e2e tests read to time the layout and click a node.
 */
import cytoscape, { type Core, type ElementDefinition, type StylesheetJson } from 'cytoscape'
import fcose from 'cytoscape-fcose'
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react'
import { edgeLabel, nodeDiameter, type EvictorGraph } from '../logic/evictor-graph'

cytoscape.use(fcose)

const MAX_FIT_ZOOM = 1.2

export interface EvictorGraphHandle {
  /** The graph as drawn, as a PNG (2x, on the theme's background). */
  png(): Promise<Blob>
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

function token(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback
}

function stylesheet(): StylesheetJson {
  const text = token('--text', '#1d2025')
  const surface = token('--surface', '#ffffff')
  const accent = token('--accent', '#2f5fd0')
  const danger = token('--danger', '#b42318')
  const muted = token('--muted', '#626a76')
  const focus = token('--focus', '#2f5fd0')
  return [
    {
      selector: 'node',
      style: {
        width: 'data(size)',
        height: 'data(size)',
        'background-color': accent,
        'background-opacity': 0.85,
        label: 'data(label)',
        color: text,
        'font-size': 12,
        'font-family': 'system-ui, sans-serif',
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-background-color': surface,
        'text-background-opacity': 0.85,
        'text-background-padding': '2px',
        'text-background-shape': 'roundrectangle',
        'border-width': 1,
        'border-color': surface
      }
    },
    { selector: 'node[?cyclic]', style: { 'background-color': danger } },
    { selector: 'node[kind = "pseudo"]', style: { shape: 'round-rectangle', 'background-color': muted } },
    { selector: 'node.dimmed, edge.dimmed', style: { opacity: 0.25 } },
    { selector: 'node:selected, node.chosen', style: { 'border-width': 4, 'border-color': focus } },
    {
      selector: 'edge',
      style: {
        width: 'data(width)',
        'line-color': muted,
        'target-arrow-color': muted,
        'target-arrow-shape': 'triangle',
        'curve-style': 'bezier',
        'control-point-step-size': 48,
        label: 'data(label)',
        'font-size': 11,
        color: text,
        'text-background-color': surface,
        'text-background-opacity': 0.9,
        'text-background-padding': '2px',
        'text-rotation': 'autorotate'
      }
    },
    { selector: 'edge[?cyclic]', style: { 'line-color': danger, 'target-arrow-color': danger } }
  ]
}

function elements(graph: EvictorGraph): ElementDefinition[] {
  const maxMisses = Math.max(1, ...graph.nodes.map((n) => n.misses))
  return [
    ...graph.nodes.map((n) => ({
      group: 'nodes' as const,
      data: { id: n.id, label: n.label, kind: n.kind, size: nodeDiameter(n.misses, maxMisses), cyclic: n.cycle !== null }
    })),
    ...graph.edges.map((e) => ({
      group: 'edges' as const,
      data: { id: e.id, source: e.source, target: e.target, label: edgeLabel(e.fraction), cyclic: e.inCycle, width: 1.5 + 3.5 * e.fraction }
    }))
  ]
}

export function EvictorGraphCanvas({ graph, selected, highlighted, dark, onSelect, onOpen, ref }: Props) {
  const container = useRef<HTMLDivElement>(null)
  const cy = useRef<Core | null>(null)
  const handlers = useRef({ onSelect, onOpen })
  handlers.current = { onSelect, onOpen }

  useEffect(() => {
    const c = cytoscape({ container: container.current, style: stylesheet(), wheelSensitivity: 0.3, minZoom: 0.1, maxZoom: 4, boxSelectionEnabled: false })
    c.on('tap', 'node', (e) => handlers.current.onSelect(e.target.id()))
    c.on('dbltap', 'node', (e) => handlers.current.onOpen(e.target.id()))
    const publish = () => {
      const positions: Record<string, [number, number]> = {}
      c.nodes().forEach((n) => {
        const p = n.renderedPosition()
        positions[n.id()] = [Math.round(p.x), Math.round(p.y)]
      })
      container.current?.setAttribute('data-node-positions', JSON.stringify(positions))
    }
    c.on('viewport layoutstop', publish)
    cy.current = c
    return () => {
      c.destroy()
      cy.current = null
    }
  }, [])

  useEffect(() => {
    cy.current?.style(stylesheet())
  }, [dark])

  useEffect(() => {
    const c = cy.current
    if (!c) return
    const el = container.current!
    el.setAttribute('data-layout-state', 'running')
    c.elements().remove()
    c.add(elements(graph))
    const started = performance.now()
    const layout = c.layout({
      name: 'fcose',
      quality: graph.nodes.length > 150 ? 'draft' : 'default',
      randomize: true,
      animate: false,
      nodeDimensionsIncludeLabels: true,
      idealEdgeLength: () => 140,
      nodeRepulsion: () => 9000,
      nodeSeparation: 90,
      padding: 40
    } as cytoscape.LayoutOptions)
    layout.one('layoutstop', () => {
      // A handful of nodes would be blown up to fill the pane; keep them at reading size.
      if (c.zoom() > MAX_FIT_ZOOM) {
        c.zoom(MAX_FIT_ZOOM)
        c.center()
      }
      el.setAttribute('data-layout-ms', String(Math.round(performance.now() - started)))
      el.setAttribute('data-layout-state', 'done')
    })
    layout.run()
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
    fit: () => {
      const c = cy.current
      if (!c) return
      c.fit(undefined, 40)
      if (c.zoom() > MAX_FIT_ZOOM) {
        c.zoom(MAX_FIT_ZOOM)
        c.center()
      }
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

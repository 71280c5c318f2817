/**
 * Draws an evictor graph (logic/evictor-graph.ts) with cytoscape and the fcose layout. Only
 * draws: nodes sized by misses, edges evictor -> evictee labelled with METRIC's percentage,
 * cycles in the danger colour. Colours come from the page's CSS tokens, so both themes read.
 * After each layout the container carries `data-layout-ms` and the nodes' rendered centres
 * (`data-node-positions`), which the e2e tests read to time the layout and click a node.
 */
import cytoscape, { type Core } from 'cytoscape'
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react'
import type { EvictorGraph } from '../logic/evictor-graph'
import { evictorGraphSvg } from '../logic/evictor-graph-svg'
import { evictorElements, evictorLayoutOptions, evictorStylesheet, token } from './evictor-graph-style'

const MAX_FIT_ZOOM = 1.2

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
    cy.current?.style(evictorStylesheet())
  }, [dark])

  useEffect(() => {
    const c = cy.current
    if (!c) return
    const el = container.current!
    el.setAttribute('data-layout-state', 'running')
    // Nodes already on screen keep their place (moving the threshold slider must not
    // reshuffle the picture); only a graph with new nodes is laid out again.
    const placed = new Map(c.nodes().map((n) => [n.id(), { ...n.position() }] as const))
    c.elements().remove()
    const els = evictorElements(graph).map((e) => (e.group === 'nodes' && placed.has(e.data.id!) ? { ...e, position: placed.get(e.data.id!)! } : e))
    c.add(els)
    const known = graph.nodes.filter((n) => placed.has(n.id)).length
    if (graph.nodes.length > 0 && known === graph.nodes.length) {
      el.setAttribute('data-layout-state', 'done')
      c.emit('layoutstop') // positions for the tests and the node list are current
      return
    }
    const started = performance.now()
    const layout = c.layout({ ...evictorLayoutOptions(graph.nodes.length), randomize: known < graph.nodes.length / 2 } as cytoscape.LayoutOptions)
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

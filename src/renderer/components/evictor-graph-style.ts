/**
 * How the evictor graph looks and is laid out in cytoscape: elements from the graph model,
 * the stylesheet from the page's CSS tokens, and the fcose options. Apart from the component
 * so bench/ui/evictor-layout.mjs times exactly what the app runs.
 */
import cytoscape, { type ElementDefinition, type LayoutOptions, type StylesheetJson } from 'cytoscape'
import fcose from 'cytoscape-fcose'
import { canvasLabel, edgeLabel, nodeDiameter, WEAK_EDGE, type EvictorGraph } from '../logic/evictor-graph'

cytoscape.use(fcose)

/**
 * fcose, no animation; 'draft' quality past 150 nodes keeps big graphs interactive. The
 * component runs it on a seeded Math.random (one graph, one picture).
 */
export function evictorLayoutOptions(nodes: number): LayoutOptions {
  return {
    name: 'fcose',
    quality: nodes > 150 ? 'draft' : 'default',
    randomize: true,
    animate: false,
    nodeDimensionsIncludeLabels: true,
    // Compact: labels are part of a node's box, so this packs nodes without their labels
    // touching, and a top-12 picture fits a 1280x720 window at reading zoom.
    idealEdgeLength: () => 70,
    nodeRepulsion: () => 4500,
    gravity: 0.8,
    nodeSeparation: 60,
    padding: 30
  } as LayoutOptions
}

export function token(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback
}

export function evictorStylesheet(): StylesheetJson {
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
        'font-size': 13,
        // Labels too small to read when zoomed out are skipped (they dominate paint time).
        'min-zoomed-font-size': 7,
        'font-weight': 500,
        'text-wrap': 'wrap',
        'line-height': 1.15,
        'font-family': 'system-ui, sans-serif',
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-background-color': surface,
        // Opaque: an edge or a node behind a label never lowers its contrast.
        'text-background-opacity': 1,
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
        'min-zoomed-font-size': 8,
        color: text,
        'text-background-color': surface,
        'text-background-opacity': 0.9,
        'text-background-padding': '2px',
        'text-rotation': 'autorotate'
      }
    },
    { selector: 'edge[?cyclic]', style: { 'line-color': danger, 'target-arrow-color': danger } },
    // Under WEAK_EDGE: thin, faint and unlabelled (the legend says so; the node details list them).
    { selector: 'edge[?weak]', style: { label: '', opacity: 0.45, 'arrow-scale': 0.7 } }
  ]
}

export function evictorElements(graph: EvictorGraph): ElementDefinition[] {
  const maxMisses = Math.max(1, ...graph.nodes.map((n) => n.misses))
  return [
    ...graph.nodes.map((n) => ({
      group: 'nodes' as const,
      data: { id: n.id, label: canvasLabel(n.label), full: n.label, kind: n.kind, size: nodeDiameter(n.misses, maxMisses), cyclic: n.cycle !== null }
    })),
    ...graph.edges.map((e) => ({
      group: 'edges' as const,
      data: {
        id: e.id,
        source: e.source,
        target: e.target,
        label: edgeLabel(e.fraction),
        cyclic: e.inCycle,
        weak: e.fraction < WEAK_EDGE,
        width: e.fraction < WEAK_EDGE ? 1 : 1.5 + 3.5 * e.fraction
      }
    }))
  ]
}


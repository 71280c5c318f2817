/**
 * The evictor graph as a standalone SVG (export), from the positions the layout gave it:
 * circles sized by misses, straight arrows evictor -> evictee with METRIC's percentage, cycles
 * in the danger colour. Reciprocal edges (A evicts B, B evicts A) are drawn as two offset
 * lines so both labels stay readable. Pure: positions and colours in, text out.
 */
import { edgeLabel, nodeDiameter, type EvictorGraph } from './evictor-graph'

export interface SvgColors {
  background: string
  text: string
  node: string
  cycle: string
  edge: string
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const f = (n: number) => (Math.round(n * 10) / 10).toString()

export function evictorGraphSvg(graph: EvictorGraph, positions: Map<string, { x: number; y: number }>, colors: SvgColors): string {
  const maxMisses = Math.max(0, ...graph.nodes.map((n) => n.misses))
  const size = new Map(graph.nodes.map((n) => [n.id, nodeDiameter(n.misses, maxMisses)]))
  const placed = graph.nodes.filter((n) => positions.has(n.id))
  const pad = 60
  const xs = placed.map((n) => positions.get(n.id)!.x)
  const ys = placed.map((n) => positions.get(n.id)!.y)
  const minX = Math.min(0, ...xs) - pad
  const minY = Math.min(0, ...ys) - pad
  const width = Math.max(...xs, 0) - minX + pad
  const height = Math.max(...ys, 0) - minY + pad
  const pairs = new Set(graph.edges.map((e) => `${e.source}\u0000${e.target}`))
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f(width)}" height="${f(height)}" viewBox="${f(minX)} ${f(minY)} ${f(width)} ${f(height)}" font-family="system-ui, sans-serif">`,
    `<rect x="${f(minX)}" y="${f(minY)}" width="${f(width)}" height="${f(height)}" fill="${esc(colors.background)}"/>`,
    '<defs>',
    `<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${esc(colors.edge)}"/></marker>`,
    `<marker id="arrow-cycle" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${esc(colors.cycle)}"/></marker>`,
    '</defs>'
  ]
  for (const e of graph.edges) {
    const a = positions.get(e.source)
    const b = positions.get(e.target)
    if (!a || !b || e.source === e.target) continue
    const dx = b.x - a.x
    const dy = b.y - a.y
    const len = Math.hypot(dx, dy) || 1
    const [ux, uy] = [dx / len, dy / len]
    // Offset sideways when the reverse edge exists, then stop at the circles' rims.
    const off = pairs.has(`${e.target}\u0000${e.source}`) ? 6 : 0
    const [ox, oy] = [-uy * off, ux * off]
    const ra = size.get(e.source)! / 2
    const rb = size.get(e.target)! / 2 + 2
    const x1 = a.x + ux * ra + ox
    const y1 = a.y + uy * ra + oy
    const x2 = b.x - ux * rb + ox
    const y2 = b.y - uy * rb + oy
    const color = e.inCycle ? colors.cycle : colors.edge
    out.push(
      `<line x1="${f(x1)}" y1="${f(y1)}" x2="${f(x2)}" y2="${f(y2)}" stroke="${esc(color)}" stroke-width="${f(1.5 + 3.5 * e.fraction)}" marker-end="url(#${e.inCycle ? 'arrow-cycle' : 'arrow'})"><title>${esc(`${e.source} evicts ${e.target}: ${e.count} (${edgeLabel(e.fraction)})`)}</title></line>`,
      `<text x="${f((x1 + x2) / 2 + ox)}" y="${f((y1 + y2) / 2 + oy)}" font-size="11" fill="${esc(colors.text)}" text-anchor="middle" dominant-baseline="middle" paint-order="stroke" stroke="${esc(colors.background)}" stroke-width="3">${esc(edgeLabel(e.fraction))}</text>`
    )
  }
  for (const n of placed) {
    const p = positions.get(n.id)!
    const r = size.get(n.id)! / 2
    out.push(
      `<circle cx="${f(p.x)}" cy="${f(p.y)}" r="${f(r)}" fill="${esc(n.cycle !== null ? colors.cycle : colors.node)}" fill-opacity="0.85"><title>${esc(`${n.label}: ${n.misses} misses`)}</title></circle>`,
      `<text x="${f(p.x)}" y="${f(p.y + r + 14)}" font-size="12" fill="${esc(colors.text)}" text-anchor="middle">${esc(n.label)}</text>`
    )
  }
  out.push('</svg>')
  return out.join('\n')
}

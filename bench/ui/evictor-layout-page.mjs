// Runs in Chromium (bundled by evictor-layout.mjs): builds a synthetic run with N references,
// computes its evictor graph with the app's model, and times the app's cytoscape + fcose
// layout and first render on a 1200x800 canvas.
import cytoscape from 'cytoscape'
import { computeEvictorGraph } from '../../src/renderer/logic/evictor-graph'
import { evictorElements, evictorLayoutOptions, evictorStylesheet } from '../../src/renderer/components/evictor-graph-style'

/** Deterministic: references in clusters of ~12 that evict each other, a 3-cycle in each, a few cross edges. */
function syntheticReport(n, seed) {
  let x = seed >>> 0 || 1
  const rnd = () => ((x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32)
  const ids = Array.from({ length: n }, (_, i) => `V${Math.floor(i / 3)}_Read_${i}`)
  const references = ids.map((id, i) => {
    const cluster = Math.floor(i / 12) * 12
    const evictors = []
    const k = 1 + Math.floor(rnd() * 3)
    for (let j = 0; j < k; j++) {
      const by = rnd() < 0.9 ? cluster + Math.floor(rnd() * 12) : Math.floor(rnd() * n)
      if (by < n && by !== i) evictors.push({ level: 'L1', by: ids[by], count: 10 + Math.floor(rnd() * 1000), fraction: 0 })
    }
    if (i % 12 < 3) evictors.push({ level: 'L1', by: ids[cluster + ((i % 12) + 2) % 3], count: 5000, fraction: 0 })
    const total = evictors.reduce((s, e) => s + e.count, 0)
    evictors.forEach((e) => (e.fraction = e.count / total))
    const misses = 100 + Math.floor(rnd() * 10000)
    return { id, pc: '0x0', kind: 'read', file: 'k.c', line: 10 + i, function: 'k', variable: `V${Math.floor(i / 3)}`, reads: misses * 2, writes: 0, levels: { L1: { hits: misses, misses, readMisses: misses, writeMisses: 0 } }, evictors }
  })
  return { run: 1, config: { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false }, levels: [], lines: [], references }
}

window.benchEvictorLayout = async (n, seed) => {
  const report = syntheticReport(n, seed)
  const t0 = performance.now()
  const graph = computeEvictorGraph(report, { level: 'L1', mode: 'reference', threshold: 0.05 })
  const t1 = performance.now()
  const container = document.getElementById('cy')
  const cy = cytoscape({ container, style: evictorStylesheet() })
  cy.add(evictorElements(graph))
  const t2 = performance.now()
  await new Promise((resolve) => {
    const layout = cy.layout(evictorLayoutOptions(graph.nodes.length))
    layout.one('layoutstop', resolve)
    layout.run()
  })
  const t3 = performance.now()
  // First frame drawn after the layout.
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
  const t4 = performance.now()
  cy.destroy()
  return { nodes: graph.nodes.length, edges: graph.edges.length, cycles: graph.cycles.length, modelMs: t1 - t0, addMs: t2 - t1, layoutMs: t3 - t2, paintMs: t4 - t3 }
}

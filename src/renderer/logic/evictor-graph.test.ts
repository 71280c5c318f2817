import { describe, expect, it } from 'vitest'
import type { ReferenceStats, RunReport } from '../../shared/domain'
import { canvasLabel, computeEvictorGraph, cycleLabel, cycleReferences, edgeLabel, EVICTOR_TOP_N, evictorEdgesCsv, evictorGraphJson, graphSeed, nextLimit, nodeDiameter, seededRandom, shortLabel } from './evictor-graph'
import { evictorGraphSvg } from './evictor-graph-svg'

/**
 * Fixture mini-language, one reference per line:
 *   `ID VAR LINE misses/accesses  evictor:count evictor:count ...`
 * All at level L1 of conflict.c.
 */
function reportFrom(text: string): RunReport {
  const references: ReferenceStats[] = text
    .trim()
    .split('\n')
    .map((row) => {
      const [id, variable, line, ma, ...ev] = row.trim().split(/\s+/) as [string, string, string, string, ...string[]]
      const [misses, accesses] = ma.split('/').map(Number) as [number, number]
      const evictors = ev.map((e) => {
        const [by, count] = e.split(':') as [string, string]
        return { level: 'L1', by, count: Number(count), fraction: 0 }
      })
      const total = evictors.reduce((s, e) => s + e.count, 0)
      evictors.forEach((e) => (e.fraction = e.count / total))
      return {
        id,
        pc: '0x0',
        kind: 'read',
        file: '/src/conflict.c',
        line: Number(line),
        function: 'sumfunc',
        variable: variable === '-' ? null : variable,
        reads: accesses,
        writes: 0,
        levels: { L1: { hits: accesses - misses, misses, readMisses: misses, writeMisses: 0 } },
        evictors
      }
    })
  return {
    run: 1,
    config: { levels: [{ name: 'L1', size: 131072, assoc: 2, lineSize: 128, policy: 'lru' }], cachegrindCompatible: false },
    levels: [{ name: 'L1', reads: 0, writes: 0, readMisses: 0, writeMisses: 0 }],
    lines: [],
    references
  }
}

// The bundled conflict example as the simulator reports it (METRIC Figure 16).
const CONFLICT = reportFrom(`
  A_Read_0 A 30 8192/8192 C_Read_2:8192
  B_Read_1 B 30 8192/8192 A_Read_0:7680 unknown_Read_3:1
  C_Read_2 C 30 8192/8192 B_Read_1:7680
  unknown_Read_3 - 29 1/1
`)

describe('computeEvictorGraph', () => {
  it('by data structure, counts a reference on two structures to each as the run counted it', () => {
    const report = reportFrom(`
      A_Read_0 A 30 100/200 B_Read_1:10
      B_Read_1 B 31 50/50 A_Read_0:40
    `)
    // A_Read_0 touched A 100 times (1 miss) and B 100 times (99 misses): shares would say 50/50.
    const ref = report.references[0]!
    ref.touches = [
      { variable: 'A', accesses: 100, reads: 100, writes: 0, levels: { L1: { hits: 99, misses: 1, readMisses: 1, writeMisses: 0 } } },
      { variable: 'B', accesses: 100, reads: 100, writes: 0, levels: { L1: { hits: 1, misses: 99, readMisses: 99, writeMisses: 0 } } }
    ]
    const g = computeEvictorGraph(report, { level: 'L1', mode: 'variable', threshold: 0 })
    expect(Object.fromEntries(g.nodes.map((n) => [n.id, n.misses]))).toEqual({ A: 1, B: 149 })
  })

  it('draws METRIC Figure 16: a 3-cycle A -> B -> C -> A with 100% edges', () => {
    const g = computeEvictorGraph(CONFLICT, { level: 'L1', mode: 'reference', threshold: 0.01 })
    expect(g.cycles).toHaveLength(1)
    expect(cycleLabel(g.cycles[0]!)).toBe('A_Read_0 ↔ B_Read_1 ↔ C_Read_2')
    expect(g.cycles[0]!.evictions).toBe(8192 + 7680 + 7680)
    expect(g.edges.map((e) => `${e.source}->${e.target} ${edgeLabel(e.fraction)}`)).toEqual([
      'C_Read_2->A_Read_0 100%',
      'A_Read_0->B_Read_1 100%',
      'B_Read_1->C_Read_2 100%'
    ])
    expect(g.edges.every((e) => e.inCycle)).toBe(true)
    expect(g.nodes.map((n) => [n.id, n.cycle, n.location])).toEqual([
      ['A_Read_0', 0, 'conflict.c:30'],
      ['B_Read_1', 0, 'conflict.c:30'],
      ['C_Read_2', 0, 'conflict.c:30']
    ])
    // The one eviction by the stray reference is under 1%: hidden, and its node with it.
    expect(g.hiddenEdges).toBe(1)
    expect(g.isolatedNodes).toBe(1)
  })

  it('shows small edges at threshold 0, outside the cycle', () => {
    const g = computeEvictorGraph(CONFLICT, { level: 'L1', mode: 'reference', threshold: 0 })
    const stray = g.edges.find((e) => e.source === 'unknown_Read_3')!
    expect(stray.target).toBe('B_Read_1')
    expect(stray.inCycle).toBe(false)
    expect(edgeLabel(stray.fraction)).toBe('<0.1%')
    expect(g.nodes.find((n) => n.id === 'unknown_Read_3')!.cycle).toBeNull()
    expect(g.cycles).toHaveLength(1)
  })

  it('a high threshold breaks the cycle', () => {
    const r = reportFrom(`
      X_Read_0 X 1 100/100 Y_Read_1:60 Z_Read_2:40
      Y_Read_1 Y 2 100/100 X_Read_0:100
      Z_Read_2 Z 3 10/100
    `)
    expect(computeEvictorGraph(r, { level: 'L1', mode: 'reference', threshold: 0.5 }).cycles).toHaveLength(1)
    const g = computeEvictorGraph(r, { level: 'L1', mode: 'reference', threshold: 0.7 })
    expect(g.cycles).toHaveLength(0)
    expect(g.edges.map((e) => e.id)).toEqual(['X_Read_0->Y_Read_1'])
  })

  it('rolls references up to variables, keeping pseudo-owners apart', () => {
    const r = reportFrom(`
      A_Read_0 A 10 50/100 B_Read_2:30 prefetch:10
      A_Write_1 A 11 70/100 B_Read_2:60
      B_Read_2 B 12 40/100 A_Write_1:40
    `)
    const g = computeEvictorGraph(r, { level: 'L1', mode: 'variable', threshold: 0 })
    expect(g.nodes.map((n) => [n.id, n.kind, n.misses, n.line])).toEqual([
      ['A', 'variable', 120, 11],
      ['B', 'variable', 40, 12],
      ['prefetch', 'pseudo', 0, null]
    ])
    const ab = g.edges.find((e) => e.id === 'B->A')!
    expect(ab.count).toBe(90)
    expect(ab.fraction).toBeCloseTo(0.9)
    expect(g.cycles.map(cycleLabel)).toEqual(['A ↔ B'])
    expect(g.edges.find((e) => e.source === 'prefetch')!.inCycle).toBe(false)
  })

  it('labels a site-named heap block by its source name over its site; ids stay', () => {
    const r = reportFrom(`
      h_Read_0 heap@lz4frame.c:123 10 50/100 s_Read_1:50
      s_Read_1 src 11 40/100 h_Read_0:40
    `)
    const names = new Map([['heap@lz4frame.c:123', { label: 'hashTable' }]])
    const g = computeEvictorGraph(r, { level: 'L1', mode: 'variable', threshold: 0, names })
    expect(g.nodes.map((n) => [n.id, n.label])).toEqual([
      ['heap@lz4frame.c:123', 'hashTable@lz4frame.c:123'],
      ['src', 'src']
    ])
    expect(canvasLabel(g.nodes[0]!.label)).toBe('hashTable\n@lz4frame.c:123')
    // References keep their own names.
    expect(computeEvictorGraph(r, { level: 'L1', mode: 'reference', threshold: 0, names }).nodes.map((n) => n.label)).toEqual(['h_Read_0', 's_Read_1'])
  })

  it('ignores other levels', () => {
    const r = reportFrom(`A_Read_0 A 1 5/5 B_Read_1:5
      B_Read_1 B 1 5/5 A_Read_0:5`)
    const g = computeEvictorGraph(r, { level: 'L2', mode: 'reference', threshold: 0 })
    expect(g.nodes).toEqual([])
    expect(g.edges).toEqual([])
  })
})

describe('exports and sizes', () => {
  const g = computeEvictorGraph(CONFLICT, { level: 'L1', mode: 'reference', threshold: 0.01 })

  it('writes the visible edges as CSV', () => {
    expect(evictorEdgesCsv(g).split('\n')).toEqual([
      'evictor,evictee,count,fraction,in_cycle',
      'C_Read_2,A_Read_0,8192,1.000000,1',
      'A_Read_0,B_Read_1,7680,0.999870,1',
      'B_Read_1,C_Read_2,7680,1.000000,1',
      ''
    ])
  })

  it('writes nodes, edges and cycles as JSON', () => {
    const j = JSON.parse(evictorGraphJson(g)) as { edges: Array<{ evictor: string }>; cycles: Array<{ nodes: string[] }> }
    expect(j.edges[0]!.evictor).toBe('C_Read_2')
    expect(j.cycles[0]!.nodes).toEqual(['A_Read_0', 'B_Read_1', 'C_Read_2'])
  })

  it('sizes nodes by the square root of misses', () => {
    expect(nodeDiameter(0, 100)).toBe(18)
    expect(nodeDiameter(100, 100)).toBe(72)
    expect(nodeDiameter(25, 100)).toBe(18 + 54 * 0.5)
  })
})

describe('SVG export', () => {
  const g = computeEvictorGraph(CONFLICT, { level: 'L1', mode: 'reference', threshold: 0.01 })
  const at = new Map([
    ['A_Read_0', { x: 0, y: 0 }],
    ['B_Read_1', { x: 200, y: 0 }],
    ['C_Read_2', { x: 100, y: 170 }]
  ])
  const svg = evictorGraphSvg(g, at, { background: '#fff', text: '#111', node: '#36c', cycle: '#c00', edge: '#888' })

  it('draws every placed node and edge, cycles in the cycle colour, with labels', () => {
    expect(svg.match(/<circle /g)).toHaveLength(3)
    expect(svg.match(/<line /g)).toHaveLength(3)
    expect(svg.match(/fill="#c00" fill-opacity/g)).toHaveLength(3)
    expect(svg).toContain('>A_Read_0</text>')
    expect(svg).toContain('>100%</text>')
    expect(svg).toContain('marker-end="url(#arrow-cycle)"')
  })

  it('is a standalone document whose view box holds every node', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    const [x, y, w, h] = /viewBox="([-\d. ]+)"/.exec(svg)![1]!.split(' ').map(Number) as [number, number, number, number]
    for (const p of at.values()) {
      expect(p.x).toBeGreaterThan(x)
      expect(p.x).toBeLessThan(x + w)
      expect(p.y).toBeGreaterThan(y)
      expect(p.y).toBeLessThan(y + h)
    }
  })

  it('escapes labels', () => {
    const named = { ...g, nodes: g.nodes.map((n) => (n.id === 'A_Read_0' ? { ...n, label: 'a<b>&"' } : n)) }
    expect(evictorGraphSvg(named, at, { background: '#fff', text: '#111', node: '#36c', cycle: '#c00', edge: '#888' })).toContain('>a&lt;b&gt;&amp;&quot;</text>')
  })
})


// A whole-program-like session: 20 references in 5 data structures, each evicting the next
// (a ring), misses falling with the index so the top N is known.
const RING = reportFrom(
  Array.from({ length: 20 }, (_, i) => `R${String(i).padStart(2, '0')} V${i % 5} 10 ${1000 - i * 10}/2000 R${String((i + 19) % 20).padStart(2, '0')}:100`).join('\n')
)

describe('grouping and top N (issue 48)', () => {
  it('keeps only the top N nodes by misses, with the edges among them', () => {
    const g = computeEvictorGraph(RING, { level: 'L1', mode: 'reference', threshold: 0.05, limit: EVICTOR_TOP_N })
    expect(EVICTOR_TOP_N).toBe(12)
    expect(g.nodes.map((n) => n.id)).toEqual(Array.from({ length: 12 }, (_, i) => `R${String(i).padStart(2, '0')}`))
    expect(g.totalNodes).toBe(20)
    expect(g.hiddenNodes).toBe(8)
    const ids = new Set(g.nodes.map((n) => n.id))
    expect(g.edges.every((e) => ids.has(e.source) && ids.has(e.target))).toBe(true)
    // R00 -> R01 ... R10 -> R11: the ring is cut where it leaves the top 12, so no cycle.
    expect(g.edges).toHaveLength(11)
    expect(g.cycles).toEqual([])
    // Without a limit: everything, and the ring is one cycle.
    const all = computeEvictorGraph(RING, { level: 'L1', mode: 'reference', threshold: 0.05 })
    expect(all.nodes).toHaveLength(20)
    expect(all.hiddenNodes).toBe(0)
    expect(all.cycles).toHaveLength(1)
  })

  it('breaks ties in misses by id, the same in any input order', () => {
    const tied = reportFrom(['b V 1 5/5 a:1', 'a V 1 5/5 c:1', 'c V 1 5/5 b:1'].join('\n'))
    const reversed = { ...tied, references: [...tied.references].reverse() }
    for (const r of [tied, reversed]) expect(computeEvictorGraph(r, { level: 'L1', mode: 'reference', threshold: 0, limit: 2 }).nodes.map((n) => n.id)).toEqual(['a', 'b'])
  })

  it('groups by data structure, and an expanded one shows its references', () => {
    const g = computeEvictorGraph(RING, { level: 'L1', mode: 'variable', threshold: 0.05, limit: EVICTOR_TOP_N })
    expect(g.nodes.map((n) => [n.id, n.kind])).toEqual([
      ['V0', 'variable'],
      ['V1', 'variable'],
      ['V2', 'variable'],
      ['V3', 'variable'],
      ['V4', 'variable']
    ])
    expect(g.hiddenNodes).toBe(0)
    const x = computeEvictorGraph(RING, { level: 'L1', mode: 'variable', threshold: 0.05, expanded: new Set(['V1']), limit: EVICTOR_TOP_N })
    const ids = x.nodes.map((n) => n.id)
    expect(ids).not.toContain('V1')
    for (const r of ['R01', 'R06', 'R11', 'R16']) expect(x.nodes.find((n) => n.id === r)?.kind).toBe('reference')
    expect(ids.filter((id) => id.startsWith('V')).sort()).toEqual(['V0', 'V2', 'V3', 'V4'])
    // V0's references evict V1's (R00 -> R01): the edge now ends at the reference.
    expect(x.edges.find((e) => e.source === 'V0' && e.target === 'R01')).toBeDefined()
    // A cycle through an expanded structure maps back to references of both kinds.
    const cycle = x.cycles[0]!
    const refs = cycleReferences(cycle, RING, 'variable')
    expect(refs).toContain('R01')
    expect(refs).toContain('R00')
  })

  it('Show more adds N at a time up to all', () => {
    expect(nextLimit(12, 48)).toBe(24)
    expect(nextLimit(36, 48)).toBe(48)
    expect(nextLimit(48, 48)).toBe(48)
  })

  it('truncates long labels with an ellipsis, short ones whole', () => {
    expect(shortLabel('A_Read_30@sumfunc+0x14')).toBe('A_Read_30@sumfunc+0x14')
    const long = 'unknown_Read_1234@_dl_relocate_object+0x3f5'
    expect(shortLabel(long)).toHaveLength(24)
    expect(shortLabel(long).endsWith('…')).toBe(true)
    expect(long.startsWith(shortLabel(long).slice(0, -1))).toBe(true)
  })

  it('draws a reference id on two lines, what over where', () => {
    expect(canvasLabel('A_Read_30@sumfunc+0x14')).toBe('A_Read_30\n@sumfunc+0x14')
    expect(canvasLabel('unknown_Read_170@ld-linux-x86-64.so.2+0x1f3e')).toBe('unknown_Read_170\n@ld-linux-x86-64.so…')
    expect(canvasLabel('A')).toBe('A')
  })

  it('seeds the layout from the graph: same graph, same numbers', () => {
    const g = computeEvictorGraph(RING, { level: 'L1', mode: 'reference', threshold: 0.05, limit: 12 })
    const h = computeEvictorGraph(RING, { level: 'L1', mode: 'reference', threshold: 0.05, limit: 12 })
    expect(graphSeed(g)).toBe(graphSeed(h))
    expect(graphSeed(g)).not.toBe(graphSeed(computeEvictorGraph(RING, { level: 'L1', mode: 'reference', threshold: 0.05, limit: 13 })))
    const a = seededRandom(graphSeed(g))
    const b = seededRandom(graphSeed(g))
    const xs = Array.from({ length: 5 }, () => a())
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs)
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
  })
})

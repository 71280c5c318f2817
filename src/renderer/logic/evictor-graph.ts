/**
 * The evictor graph of one run and level (METRIC section 8, Figures 10 and 16): nodes are
 * references (or the variables they touch), sized by misses; an edge runs from evictor to
 * evictee and carries the share of the evictee's evictions it caused. Strongly connected
 * components of the visible edges are the cycles of evictors; whether a cycle is a conflict
 * is the set mapping's answer (`shared/miss-causes.ts`, the advisor's rule), not the cycle's.
 * Pure: a report in, plain values out; the cytoscape component only draws this.
 */
import { splitReference } from '../../shared/report-model'
import type { RunReport } from '../../shared/domain'
import { cyclicComponents } from '../../shared/strongly-connected'
import { baseName } from './format'
import { REST_OF_PROGRAM } from '../../shared/cache-context'

export type EvictorGraphMode = 'reference' | 'variable'

/** Pseudo-owners of evictions: the prefetcher, write-backs from inner levels, the rest of the program (context). */
const PSEUDO_OWNERS = new Set(['prefetch', 'write-back', REST_OF_PROGRAM])

export interface EvictorNode {
  id: string
  /** What the node shows: the reference id or the variable name. */
  label: string
  kind: 'reference' | 'variable' | 'pseudo'
  misses: number
  accesses: number
  /** Evictions of this node's lines at the level (sum of its incoming edges, hidden ones included). */
  evicted: number
  file: string | null
  line: number | null
  /** "conflict.c:30", or null. */
  location: string | null
  /** Index into `cycles`, or null when the node is in none. */
  cycle: number | null
}

export interface EvictorEdge {
  id: string
  /** The evictor. */
  source: string
  /** The evictee. */
  target: string
  count: number
  /** count / all evictions of the evictee's lines at this level (METRIC's edge label). */
  fraction: number
  /** Both ends in the same cycle. */
  inCycle: boolean
}

export interface EvictorCycle {
  /** Node ids, the most-missing first. */
  nodes: string[]
  /** Evictions along the cycle's own edges. */
  evictions: number
  misses: number
}

export interface EvictorGraph {
  level: string
  mode: EvictorGraphMode
  nodes: EvictorNode[]
  edges: EvictorEdge[]
  /** Heaviest first. */
  cycles: EvictorCycle[]
  /** Edges under the threshold, left out. */
  hiddenEdges: number
  /** Nodes with misses but no visible edge, left out to keep the picture readable. */
  isolatedNodes: number
  /** Nodes with a visible edge, before the top-N limit. */
  totalNodes: number
  /** Nodes past the top-N limit (fewest misses), left out with their edges. */
  hiddenNodes: number
}

export interface EvictorGraphOptions {
  level: string
  mode: EvictorGraphMode
  /** Smallest fraction (0..1) an edge needs to be shown. */
  threshold: number
  /** Variable mode: data structures drawn as their references instead of one node. */
  expanded?: ReadonlySet<string>
  /** Show only this many nodes, the most-missing first (ties by id); default all. */
  limit?: number
  /** Source names of site-named data structures (`logic/data-names.ts`): `hashTable@lz4frame.c:123`. */
  names?: ReadonlyMap<string, { label: string }>
}

/** How many nodes the graph shows at first, and how many more each "Show more" adds. */
export const EVICTOR_TOP_N = 12

interface NodeAcc {
  id: string
  kind: EvictorNode['kind']
  misses: number
  accesses: number
  file: string | null
  line: number | null
  /** Misses of the reference whose line the node shows (a variable: its hottest reference). */
  lineMisses: number
}

export function computeEvictorGraph(report: RunReport, { level, mode, threshold, expanded, limit = Infinity, names }: EvictorGraphOptions): EvictorGraph {
  // A heap block known only by its site reads as its source name over the site.
  const labelOf = (id: string, kind: EvictorNode['kind']) => {
    const name = kind === 'variable' ? names?.get(id)?.label : undefined
    return name ? `${name}@${id.slice(id.indexOf('@') + 1)}` : id
  }
  const refVariable = new Map(report.references.map((r) => [r.id, r.variable ?? 'unknown']))
  const grouped = (refId: string) => mode === 'variable' && refVariable.has(refId) && !expanded?.has(refVariable.get(refId)!)
  const keyOf = (refId: string) => (grouped(refId) ? refVariable.get(refId)! : refId)

  const nodes = new Map<string, NodeAcc>()
  const node = (id: string, kind: EvictorNode['kind']): NodeAcc => {
    let n = nodes.get(id)
    if (!n) nodes.set(id, (n = { id, kind, misses: 0, accesses: 0, file: null, line: null, lineMisses: -1 }))
    return n
  }
  // Evictor -> evictee counts, keyed "by\0of".
  const counts = new Map<string, number>()
  const evicted = new Map<string, number>()

  for (const whole of report.references) {
    // By data structure, a reference on several counts each part to the structure it touched
    // (as the run counted it: the same numbers as every other view).
    const parts = mode === 'variable' ? splitReference(whole) : [{ variable: refVariable.get(whole.id) ?? 'unknown', ref: whole }]
    for (const { variable, ref: r } of parts) {
      const s = r.levels[level]
      const partGrouped = mode === 'variable' && !expanded?.has(variable)
      const n = node(partGrouped ? variable : r.id, partGrouped ? 'variable' : 'reference')
      if (s) {
        n.misses += s.misses
        n.accesses += s.hits + s.misses
      }
      // A variable sits at its hottest reference's line.
      if ((s?.misses ?? 0) > n.lineMisses) {
        n.file = r.file
        n.line = r.line
        n.lineMisses = s?.misses ?? 0
      }
      for (const e of r.evictors ?? []) {
        if (e.level !== level) continue
        const by = PSEUDO_OWNERS.has(e.by) ? e.by : keyOf(e.by)
        const k = `${by}\0${n.id}`
        counts.set(k, (counts.get(k) ?? 0) + e.count)
        evicted.set(n.id, (evicted.get(n.id) ?? 0) + e.count)
      }
    }
  }

  const edges: EvictorEdge[] = []
  let hiddenEdges = 0
  for (const [k, count] of counts) {
    const [source, target] = k.split('\0') as [string, string]
    const fraction = count / evicted.get(target)!
    if (count === 0 || fraction < threshold) {
      hiddenEdges++
      continue
    }
    if (PSEUDO_OWNERS.has(source)) node(source, 'pseudo')
    else if (!nodes.has(source)) node(source, mode === 'variable' && !refVariable.has(source) ? 'variable' : 'reference') // an evictor with no stats at this level
    edges.push({ id: `${source}->${target}`, source, target, count, fraction, inCycle: false })
  }
  edges.sort((a, b) => b.count - a.count || a.id.localeCompare(b.id))

  // Keep nodes that take part in a visible edge, then the top `limit` of them by misses with
  // the edges among those.
  const linked = new Set(edges.flatMap((e) => [e.source, e.target]))
  const ranked = [...nodes.values()].filter((n) => linked.has(n.id)).sort((a, b) => b.misses - a.misses || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const isolatedNodes = [...nodes.values()].filter((n) => !linked.has(n.id) && n.misses > 0).length
  const kept = ranked.slice(0, Math.max(0, limit))
  const shown = new Set(kept.map((n) => n.id))
  if (kept.length < ranked.length) edges.splice(0, edges.length, ...edges.filter((e) => shown.has(e.source) && shown.has(e.target)))

  const indexOf = new Map(kept.map((n, i) => [n.id, i]))
  const adjacency: number[][] = kept.map(() => [])
  for (const e of edges) adjacency[indexOf.get(e.source)!]!.push(indexOf.get(e.target)!)

  const cycleOf = new Map<string, number>()
  const cycles: EvictorCycle[] = cyclicComponents(adjacency)
    .map((comp) => {
      const members = comp.map((i) => kept[i]!).sort((a, b) => b.misses - a.misses || a.id.localeCompare(b.id))
      const ids = new Set(members.map((m) => m.id))
      const evictions = edges.filter((e) => ids.has(e.source) && ids.has(e.target)).reduce((sum, e) => sum + e.count, 0)
      return { nodes: members.map((m) => m.id), evictions, misses: members.reduce((sum, m) => sum + m.misses, 0) }
    })
    .sort((a, b) => b.evictions - a.evictions || a.nodes[0]!.localeCompare(b.nodes[0]!))
  cycles.forEach((c, i) => c.nodes.forEach((id) => cycleOf.set(id, i)))
  for (const e of edges) e.inCycle = cycleOf.has(e.source) && cycleOf.get(e.source) === cycleOf.get(e.target)

  return {
    level,
    mode,
    nodes: kept.map((n) => ({
      id: n.id,
      label: labelOf(n.id, n.kind),
      kind: n.kind,
      misses: n.misses,
      accesses: n.accesses,
      evicted: evicted.get(n.id) ?? 0,
      file: n.file,
      line: n.line,
      location: n.file !== null && n.line !== null ? `${baseName(n.file)}:${n.line}` : null,
      cycle: cycleOf.get(n.id) ?? null
    })),
    edges,
    cycles,
    hiddenEdges,
    isolatedNodes,
    totalNodes: ranked.length,
    hiddenNodes: ranked.length - kept.length
  }
}

/** The references behind a cycle's nodes (a variable node stands for every reference touching it). */
export function cycleReferences(cycle: EvictorCycle, report: RunReport, mode: EvictorGraphMode): string[] {
  const nodes = new Set(cycle.nodes.filter((n) => !PSEUDO_OWNERS.has(n)))
  if (mode === 'reference') return [...nodes]
  // A data structure's node, or one of an expanded data structure's references.
  return report.references.filter((r) => nodes.has(r.variable ?? 'unknown') || nodes.has(r.id)).map((r) => r.id)
}

/** A node's label as drawn: at most `max` characters, the rest as "…" (the full text is the tooltip). */
export function shortLabel(label: string, max = 24): string {
  return label.length <= max ? label : `${label.slice(0, max - 1)}…`
}

/**
 * A node's label on the canvas: a reference id on two lines, what it is over where it is
 * ("A_Read_30" / "@sumfunc+0x14"), each line at most `max` characters; narrow labels let
 * a dozen nodes fit a laptop window at reading size.
 */
export function canvasLabel(label: string, max = 20): string {
  const at = label.indexOf('@')
  if (at <= 0) return shortLabel(label, max)
  return `${shortLabel(label.slice(0, at), max)}\n${shortLabel(label.slice(at), max)}`
}

/** The next "Show more" step: `step` more nodes, up to all of them. */
export function nextLimit(limit: number, total: number, step = EVICTOR_TOP_N): number {
  return Math.min(total, limit + step)
}

/** Edges with less than this share are drawn thin and faint, without a label (the legend says so). */
export const WEAK_EDGE = 0.2

/** A deterministic PRNG (mulberry32) in [0, 1): the layout runs on it so one graph gets one picture. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A stable seed for a graph: a hash of its node and edge ids, so the same graph lays out the same. */
export function graphSeed(graph: Pick<EvictorGraph, 'nodes' | 'edges'>): number {
  let h = 2166136261
  for (const s of [...graph.nodes.map((n) => n.id), ...graph.edges.map((e) => e.id)]) {
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619)
    h = Math.imul(h ^ 10, 16777619)
  }
  return h >>> 0
}

/** "A_Read_0 ↔ B_Read_1 ↔ C_Read_2": how the cycle list and the advisor name a cycle. */
export function cycleLabel(cycle: EvictorCycle): string {
  return cycle.nodes.join(' ↔ ')
}

/** Node diameter in CSS pixels: area grows with misses (sqrt), so 4x the misses reads as 4x the ink. */
export function nodeDiameter(misses: number, maxMisses: number, min = 18, max = 72): number {
  if (maxMisses <= 0 || misses <= 0) return min
  return min + (max - min) * Math.sqrt(misses / maxMisses)
}

/** METRIC's edge label: the percentage of the evictee's evictions. */
export function edgeLabel(fraction: number): string {
  const pct = fraction * 100
  return `${pct >= 99.95 ? '100' : pct < 0.1 ? '<0.1' : pct.toFixed(pct >= 10 ? 0 : 1)}%`
}

/** The visible edges as CSV (evictor, evictee, count, fraction), for spreadsheets and scripts. */
export function evictorEdgesCsv(graph: EvictorGraph): string {
  const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)
  const rows = graph.edges.map((e) => [quote(e.source), quote(e.target), String(e.count), e.fraction.toFixed(6), e.inCycle ? '1' : '0'].join(','))
  return ['evictor,evictee,count,fraction,in_cycle', ...rows].join('\n') + '\n'
}

/** The visible graph as JSON: level, mode, nodes, edges and cycles. */
export function evictorGraphJson(graph: EvictorGraph): string {
  return JSON.stringify(
    {
      level: graph.level,
      mode: graph.mode,
      nodes: graph.nodes.map(({ id, kind, misses, accesses, evicted, location, cycle }) => ({ id, kind, misses, accesses, evicted, location, cycle })),
      edges: graph.edges.map(({ source, target, count, fraction, inCycle }) => ({ evictor: source, evictee: target, count, fraction, inCycle })),
      cycles: graph.cycles
    },
    null,
    2
  )
}

/**
 * The advisor: for each hot reference of a run at one cache level, the diagnosis METRIC's
 * Figure 8 reads from its metrics, and the optimizations Mohan et al. Table 1 relates to its
 * streams, with the numbers that triggered them. Pure: a RunReport in, a RunAdvice out.
 *
 * Rules (thresholds are the papers' rules of thumb; "regular" >= 0.8 and "irregular" < 0.6
 * as in Mohan 2.1 / Table 1, "low" spatial reuse < 0.5, "large" stride >= a cache line or 32+
 * elements):
 *  - a cycle of evictors (SCC of edges carrying >= 10% of an evictee's evictions) with low
 *    spatial reuse -> conflict misses -> pad the arrays (one-click external padding), unless
 *    an irregular, low-reuse member drives it (METRIC 10.1: the irregular rule applies);
 *    with high spatial reuse -> capacity misses -> tiling, or a bigger cache (one click);
 *    streams that miss once per line anyway are left to the streaming rule;
 *  - irregular (< 0.6) with misses -> scatter/gather through an indirection vector, cache hints;
 *  - regular with a large stride and a high miss ratio -> loop interchange / copying, or a
 *    stride prefetcher (one click);
 *  - regular, short stride, high spatial reuse, about one miss per line -> streaming
 *    (compulsory) misses -> prefetching when streams are long (one click);
 *  - regular, short stride, low spatial reuse outside any cycle -> lines leave before use:
 *    pad against its top evictor when that is another array;
 *  - a reference causing a large share of the level's evictions while using little of what
 *    it brings in -> it pollutes the cache -> non-temporal hints (METRIC 10.1).
 */
import type {
  AdviceItem,
  CacheLevelConfig,
  ReferenceStats,
  RunAdvice,
  RunReport,
  VariableInfo
} from '../../../shared/domain'
import { StrideError } from '../../../shared/api'
import { cyclicComponents } from '../../../shared/strongly-connected'
import { computeSetPadding, isRefusal } from './padding'

export const REGULAR = 0.8
export const IRREGULAR = 0.6
export const LOW_SPATIAL_REUSE = 0.5
/** Evictor edges below this share of the evictee's evictions do not make a cycle. */
export const CYCLE_EDGE_FRACTION = 0.1
/** Hot references: the most-missing ones covering this share of the misses (at most MAX_HOT). */
const HOT_SHARE = 0.95
const MAX_HOT = 25
const LONG_STREAM = 100

export interface AdviceOptions {
  level: string
}

/** What the rules read of one reference, computed once. */
interface RefFacts {
  ref: ReferenceStats
  misses: number
  accesses: number
  ratio: number
  spatialReuse: number | null
  temporalFraction: number | null
  regularity: number | null
  meanStream: number | null
  /** Dominant stride (bytes) and its share of the reference's streams. */
  stride: { stride: number; fraction: number } | null
  distinctStrides: number
  elementSize: number | null
  location: string
}

const fixed = (x: number, d = 2) => x.toFixed(d)
const pct = (x: number) => `${(100 * x).toFixed(x < 0.001 ? 2 : x < 0.1 ? 1 : 0)}%`
const kib = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`)
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1)
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

function levelConfig(report: RunReport, level: string): CacheLevelConfig {
  const l = report.config.levels.find((c) => c.name === level)
  if (!l) {
    const names = report.config.levels.map((c) => c.name).join(', ')
    throw new StrideError(`"${level}" is not a cache level of run ${report.run}; pick one of ${names}.`, 'invalid-input')
  }
  return l
}

function factsOf(ref: ReferenceStats, level: string, catalog: Map<string, VariableInfo>): RefFacts {
  const s = ref.levels[level]
  const misses = s?.misses ?? 0
  const accesses = (s?.hits ?? 0) + misses
  const st = ref.streams
  return {
    ref,
    misses,
    accesses,
    ratio: accesses > 0 ? misses / accesses : 0,
    spatialReuse: s?.spatialReuse ?? null,
    temporalFraction: s && s.temporalHits !== undefined && s.hits > 0 ? s.temporalHits / s.hits : null,
    regularity: st ? st.regularity : null,
    meanStream: st ? st.meanStreamLength : null,
    stride: st && st.strides.length > 0 ? st.strides[0]! : null,
    distinctStrides: st?.distinctStrides ?? 0,
    elementSize: (ref.variable && catalog.get(ref.variable)?.elementSize) || null,
    location: ref.file !== null && ref.line !== null ? `${baseName(ref.file)}:${ref.line}` : ref.pc
  }
}

function streamClause(f: RefFacts): string {
  if (f.regularity === null) return 'no stream metrics in this session'
  const kind = f.regularity >= REGULAR ? 'regular' : f.regularity < IRREGULAR ? 'irregular' : 'partly regular'
  const stride = f.stride ? `, ${f.distinctStrides === 1 ? 'single stride' : 'dominant stride'} ${f.stride.stride}${f.distinctStrides === 1 ? '' : ` (${pct(f.stride.fraction)} of streams)`}` : ''
  return `${kind} (regularity ${fixed(f.regularity)})${stride}, mean stream ${Math.round(f.meanStream ?? 0)}`
}

function missClause(f: RefFacts, level: string): string {
  return `miss ratio ${fixed(f.ratio)} (${f.misses.toLocaleString('en-US')} of ${f.accesses.toLocaleString('en-US')} at ${level})`
}

function reuseClause(f: RefFacts, line: number): string | null {
  return f.spatialReuse === null ? null : `spatial reuse ${fixed(f.spatialReuse)} (${Math.round(f.spatialReuse * line)} of each ${line}-byte line used before eviction)`
}

/** Stride in elements when the element size is known (Mohan's strides are in elements). */
function strideElements(f: RefFacts): number | null {
  return f.stride && f.elementSize ? Math.abs(f.stride.stride) / f.elementSize : null
}

function isLargeStride(f: RefFacts, line: number): boolean {
  if (!f.stride) return false
  const el = strideElements(f)
  return Math.abs(f.stride.stride) >= line || (el !== null && el >= 32)
}

/** A regular short-stride stream using its lines fully, at about one miss per line. */
function isCompulsoryStream(f: RefFacts, line: number): boolean {
  if (f.regularity === null || f.regularity < REGULAR || !f.stride || Math.abs(f.stride.stride) >= line) return false
  if (f.spatialReuse === null || f.spatialReuse < LOW_SPATIAL_REUSE) return false
  return f.ratio <= 1.5 * (Math.max(1, Math.abs(f.stride.stride)) / line)
}

export function diagnoseRun(report: RunReport, { level }: AdviceOptions): RunAdvice {
  const cache = levelConfig(report, level)
  const catalog = new Map((report.variables ?? []).map((v) => [v.name, v]))
  const facts = report.references.map((r) => factsOf(r, level, catalog))
  const byId = new Map(facts.map((f) => [f.ref.id, f]))
  const totalMisses = facts.reduce((s, f) => s + f.misses, 0)

  // Hot references: most misses first, until HOT_SHARE of the misses is covered.
  const ranked = facts.filter((f) => f.misses > 0).sort((a, b) => b.misses - a.misses || a.ref.id.localeCompare(b.ref.id))
  const hot: RefFacts[] = []
  let covered = 0
  for (const f of ranked) {
    if (hot.length >= MAX_HOT || covered >= HOT_SHARE * totalMisses) break
    hot.push(f)
    covered += f.misses
  }
  const isHot = new Set(hot.map((f) => f.ref.id))
  const items: AdviceItem[] = []
  const inCycle = new Set<string>()
  const item = (members: RefFacts[], rest: Omit<AdviceItem, 'references' | 'variables' | 'locations' | 'misses' | 'share'>): AdviceItem => {
    const misses = members.reduce((s, f) => s + f.misses, 0)
    return {
      references: members.map((f) => f.ref.id),
      variables: [...new Set(members.map((f) => f.ref.variable).filter((v): v is string => v !== null))],
      locations: [...new Set(members.map((f) => f.location))],
      misses,
      share: totalMisses > 0 ? misses / totalMisses : 0,
      ...rest
    }
  }

  // --- Cycles of evictors (METRIC Fig. 8, evictor references) ---
  const ids = facts.map((f) => f.ref.id)
  const index = new Map(ids.map((id, i) => [id, i]))
  const adjacency: number[][] = ids.map(() => [])
  const edgeShare = new Map<string, number>()
  for (const f of facts)
    for (const e of f.ref.evictors ?? []) {
      const from = index.get(e.by)
      if (e.level !== level || from === undefined || e.fraction < CYCLE_EDGE_FRACTION) continue
      adjacency[from]!.push(index.get(f.ref.id)!)
      edgeShare.set(`${e.by}>${f.ref.id}`, e.fraction)
    }
  for (const comp of cyclicComponents(adjacency)) {
    const members = comp.map((i) => facts[i]!).sort((a, b) => (a.ref.variable ?? a.ref.id).localeCompare(b.ref.variable ?? b.ref.id) || a.ref.id.localeCompare(b.ref.id))
    if (!members.some((m) => isHot.has(m.ref.id))) continue
    // A cycle through irregular references that use little of their lines is their random
    // accesses sweeping the cache (METRIC 10.1), not a layout conflict: the irregular and
    // pollution rules speak for them, and padding would not help.
    if (members.some((m) => m.regularity !== null && m.regularity < IRREGULAR && (m.spatialReuse ?? 0) < LOW_SPATIAL_REUSE)) continue
    // Streams that use each line fully before it goes miss once per line whatever the cache:
    // the cycle only says who replaces whom (the streaming rule speaks for them).
    if (members.every((m) => isCompulsoryStream(m, cache.lineSize))) continue
    members.forEach((m) => inCycle.add(m.ref.id))
    items.push(cycleItem(members, edgeShare, cache, catalog, report, item))
  }

  // --- Per hot reference (METRIC Fig. 8 rows, Mohan Table 1) ---
  for (const f of hot) {
    if (!inCycle.has(f.ref.id)) {
      const own = referenceItem(f, cache, byId, catalog, report, item)
      if (own) items.push(own)
    }
    const polluting = pollutionItem(f, facts, cache, item)
    if (polluting) items.push(polluting)
  }

  const merged = mergeAlike(items, byId, cache.name, totalMisses)
  merged.sort((a, b) => b.misses - a.misses || a.references[0]!.localeCompare(b.references[0]!))
  return { run: report.run, level, items: merged, examined: hot.length, totalMisses }
}

const MISS_CLAUSE = /^miss ratio /

/**
 * References with the same diagnosis, the same evidence but their own miss counts, and the
 * same suggestion (the three streams of one loop) read better as one item: their misses add
 * up and the miss ratio is recomputed over all of them.
 */
function mergeAlike(items: AdviceItem[], byId: Map<string, RefFacts>, level: string, totalMisses: number): AdviceItem[] {
  const groups = new Map<string, AdviceItem[]>()
  const out: AdviceItem[] = []
  for (const it of items) {
    if (it.references.length !== 1) {
      out.push(it)
      continue
    }
    const key = JSON.stringify([it.diagnosis, it.suggestion, it.action ?? null, it.evidence.filter((e) => !MISS_CLAUSE.test(e))])
    const g = groups.get(key)
    if (g) g.push(it)
    else groups.set(key, [it])
  }
  for (const g of groups.values()) {
    if (g.length === 1) {
      out.push(g[0]!)
      continue
    }
    const facts = g.map((it) => byId.get(it.references[0]!)!)
    const misses = facts.reduce((sum, f) => sum + f.misses, 0)
    const accesses = facts.reduce((sum, f) => sum + f.accesses, 0)
    const refs = g.map((it) => it.references[0]!)
    const first = g[0]!
    out.push({
      ...first,
      references: refs,
      variables: [...new Set(g.flatMap((it) => it.variables))],
      locations: [...new Set(g.flatMap((it) => it.locations))],
      misses,
      share: totalMisses > 0 ? misses / totalMisses : 0,
      title: `${first.title.slice(0, first.title.lastIndexOf(':'))}: ${refs.join(', ')}`,
      evidence: first.evidence.map((e) =>
        MISS_CLAUSE.test(e) ? `miss ratio ${fixed(accesses > 0 ? misses / accesses : 0)} (${misses.toLocaleString('en-US')} of ${accesses.toLocaleString('en-US')} at ${level})` : e
      )
    })
  }
  return out
}

type MakeItem = (members: RefFacts[], rest: Omit<AdviceItem, 'references' | 'variables' | 'locations' | 'misses' | 'share'>) => AdviceItem

function cycleItem(members: RefFacts[], edgeShare: Map<string, number>, cache: CacheLevelConfig, catalog: Map<string, VariableInfo>, report: RunReport, item: MakeItem): AdviceItem {
  const names = members.map((m) => m.ref.variable ?? m.ref.id)
  const distinctVars = [...new Set(members.map((m) => m.ref.variable).filter((v): v is string => v !== null))]
  const label = (distinctVars.length === members.length ? distinctVars : members.map((m) => m.ref.id)).join('↔')
  const withReuse = members.filter((m) => m.spatialReuse !== null)
  const reuse = withReuse.length > 0 ? withReuse.reduce((s, m) => s + m.spatialReuse!, 0) / withReuse.length : null
  const misses = members.reduce((s, m) => s + m.misses, 0)
  const accesses = members.reduce((s, m) => s + m.accesses, 0)
  const ratio = accesses > 0 ? misses / accesses : 0
  const strides = [...new Set(members.map((m) => m.stride?.stride ?? null))]
  const allRegular = members.every((m) => m.regularity !== null && m.regularity >= REGULAR)

  const shares: Array<{ text: string; share: number }> = []
  for (const to of members)
    for (const from of members) {
      const share = edgeShare.get(`${from.ref.id}>${to.ref.id}`)
      if (share !== undefined && from !== to) shares.push({ text: `${from.ref.id} evicts ${to.ref.id} (${pct(share)} of its evictions)`, share })
    }
  // The strongest edges; a big component would otherwise make a paragraph.
  const MAX_EDGES = 6
  const edges = shares.sort((a, b) => b.share - a.share).slice(0, MAX_EDGES).map((e) => e.text)
  if (shares.length > MAX_EDGES) edges.push(`${shares.length - MAX_EDGES} more`)
  const evidence = [
    `evictor cycle ${members.map((m) => m.ref.id).join(' ↔ ')}: ${edges.join('; ')}`,
    `miss ratio ${fixed(ratio)} (${misses.toLocaleString('en-US')} of ${accesses.toLocaleString('en-US')} at ${cache.name})`
  ]
  if (reuse !== null) evidence.push(`spatial reuse ${fixed(reuse)} on average (${Math.round(reuse * cache.lineSize)} of each ${cache.lineSize}-byte line used before eviction)`)
  if (allRegular && strides.length === 1 && strides[0] !== null) evidence.push(`all regular, all stride ${strides[0]}`)
  else evidence.push(members.map((m) => `${m.ref.id}: ${streamClause(m)}`).join('; '))

  const lowReuse = reuse === null || reuse < LOW_SPATIAL_REUSE
  if (!lowReuse) {
    // High reuse yet a cycle: the lines are used, there is simply no room (METRIC Fig. 8).
    const bigger = { ...cache, size: cache.size * 2 }
    return item(members, {
      diagnosis: 'capacity',
      title: `Capacity misses: evictor cycle ${label}`,
      evidence,
      suggestion: `The data is used well while cached (reuse ${fixed(reuse!)}) but does not fit in ${cache.name}: tile/block the loops so the working set fits, or try a ${kib(bigger.size)} ${cache.name}.`,
      rules: ['METRIC Fig. 8: evictor references (high spatial reuse → capacity)', 'Mohan Table 1: tiling'],
      action: { kind: 'levels', label: `Try ${cache.name} ${kib(bigger.size)}`, levels: report.config.levels.map((l) => (l.name === cache.name ? bigger : l)) }
    })
  }

  const vars = distinctVars.map((v) => catalog.get(v) ?? ({ name: v, kind: 'unknown', start: null } as VariableInfo))
  const padding = computeSetPadding(vars, cache)
  const lowStride = strides.every((s) => s !== null && Math.abs(s) < cache.lineSize)
  const why = lowStride && allRegular ? 'regular, low-stride references that should use whole lines' : 'references'
  const common = {
    diagnosis: 'conflict' as const,
    title: `Conflict misses: evictor cycle ${label}`,
    evidence,
    rules: ['METRIC Fig. 8: evictor references + low spatial reuse → conflict misses', 'METRIC 10.3: pad the arrays', 'Mohan Table 1: data layout (few long streams, short strides, high miss rate)']
  }
  if (isRefusal(padding)) {
    return item(members, {
      ...common,
      suggestion: `${names.join(', ')} are ${why} evicting each other in the same sets: change the data layout (pad or interleave them). Stride cannot try it here: ${padding.reason}.`
    })
  }
  const steps = padding.filters.map((f) => `${f.variable} +${kib(f.kind === 'external' ? f.bytes : 0)}`).join(', ')
  return item(members, {
    ...common,
    suggestion: `${padding.order.join(', ')} are ${why}, mapped to the same ${cache.name} sets: pad the arrays; try +${kib(padding.spacing)} between them (${steps}).`,
    action: { kind: 'layout', label: `Pad ${steps}`, layout: padding.filters }
  })
}

function referenceItem(f: RefFacts, cache: CacheLevelConfig, byId: Map<string, RefFacts>, catalog: Map<string, VariableInfo>, report: RunReport, item: MakeItem): AdviceItem | null {
  const line = cache.lineSize
  const evidence = (...more: Array<string | null>) => [streamClause(f), missClause(f, cache.name), ...more].filter((x): x is string => x !== null)
  const prefetcher = (prefetch: 'stride' | 'next-line') =>
    cache.prefetch === prefetch
      ? undefined
      : {
          kind: 'levels' as const,
          label: `Try a ${prefetch} prefetcher at ${cache.name}`,
          levels: report.config.levels.map((l) => (l.name === cache.name ? { ...l, prefetch } : l))
        }

  if (f.regularity !== null && f.regularity < IRREGULAR && f.ratio >= 0.1) {
    return item([f], {
      diagnosis: 'irregular',
      title: `Irregular accesses: ${f.ref.id}`,
      evidence: evidence(reuseClause(f, line), f.temporalFraction === null ? null : `temporal hit fraction ${fixed(f.temporalFraction)}`),
      suggestion:
        'Prefetching cannot predict these addresses: gather the elements through the index vector into a contiguous buffer first (scatter/gather), or load them with non-temporal hints so they stop displacing data that is reused.',
      rules: ['METRIC Fig. 8: regularity ratio (irregular → cache hinting)', 'Mohan Table 1: scatter/gather using an indirection vector (irregular < 0.6)']
    })
  }
  if (f.regularity === null || f.regularity < REGULAR || !f.stride) return null

  if (isLargeStride(f, line) && f.ratio >= 0.5) {
    const el = strideElements(f)
    return item([f], {
      diagnosis: 'large-stride',
      title: `Large stride: ${f.ref.id}`,
      evidence: evidence(reuseClause(f, line), el !== null ? `stride ${el} elements of ${f.elementSize} bytes (≥ 32)` : `stride ≥ the ${line}-byte line`),
      suggestion: `Every access lands on a new line: interchange the loops so the inner loop walks contiguous memory (or copy/transpose ${f.ref.variable ?? 'the array'} first); failing that, prefetch ahead along the stride.`,
      rules: ['METRIC Fig. 8: high regularity with a high miss rate → access inefficiency', 'Mohan Table 1: loop interchange (very large strides 32+); copying, stream remapping (long streams, large strides)'],
      action: prefetcher('stride')
    })
  }
  if (Math.abs(f.stride.stride) >= line) return null

  const top = (f.ref.evictors ?? []).filter((e) => e.level === cache.name).sort((a, b) => b.count - a.count)[0]
  const topFacts = top ? byId.get(top.by) : undefined
  const irregularEvictor = topFacts?.regularity != null && topFacts.regularity < IRREGULAR

  const perLine = Math.max(1, Math.abs(f.stride.stride)) / line // compulsory miss ratio of a stream
  if (f.spatialReuse !== null && f.spatialReuse >= LOW_SPATIAL_REUSE && f.ratio >= 0.02 && f.ratio <= 1.5 * perLine) {
    const long = (f.meanStream ?? 0) >= LONG_STREAM
    // METRIC 10.1: a stream walked again later misses again when irregular accesses evicted it in between.
    const swept = irregularEvictor ? ` Between passes the irregular ${top!.by} evicts its lines; with that reference hinted non-temporal they could stay for the next pass.` : ''
    return item([f], {
      diagnosis: 'streaming',
      title: `Streaming misses: ${f.ref.id}`,
      evidence: evidence(
        reuseClause(f, line),
        `about one miss per line (a stride-${f.stride.stride} stream over ${line}-byte lines misses ${fixed(perLine, 4)} of the time)`,
        irregularEvictor ? `top evictor ${top!.by} (${pct(top!.fraction)} of its evictions) is irregular` : null
      ),
      suggestion:
        (long
          ? 'The lines are used fully; each miss is a line\'s first touch in a pass. Prefetch along the stream (long streams with short strides).'
          : 'The lines are used fully; each miss is a line\'s first touch in a pass. Streams are short, so prefetching will gain little; fuse loops that walk the same data.') + swept,
      rules: ['METRIC Fig. 8: mean stream length, % distribution of strides', long ? 'Mohan Table 1: prefetching (long streams 100+, short strides)' : 'Mohan Table 1: loop fusion'],
      action: long ? prefetcher('next-line') : undefined
    })
  }

  if (f.spatialReuse !== null && f.spatialReuse < LOW_SPATIAL_REUSE && f.ratio > 1.5 * perLine) {
    // Padding separates arrays walked in step; it cannot dodge an irregular evictor.
    const other = !irregularEvictor && topFacts?.ref.variable && topFacts.ref.variable !== f.ref.variable ? topFacts.ref.variable : null
    const ev = evidence(reuseClause(f, line), top ? `top evictor ${top.by} (${pct(top.fraction)} of its evictions)` : null)
    const rules = ['METRIC Fig. 8: spatial reuse (low with regular, low-stride accesses → conflict misses)']
    if (other && f.ref.variable) {
      const pair = [catalog.get(f.ref.variable), catalog.get(other)].map((v, i) => v ?? ({ name: i === 0 ? f.ref.variable! : other, kind: 'unknown', start: null } as VariableInfo))
      const padding = computeSetPadding(pair, cache)
      if (!isRefusal(padding) && padding.filters.length > 0) {
        const steps = padding.filters.map((p) => `${p.variable} +${kib(p.kind === 'external' ? p.bytes : 0)}`).join(', ')
        return item([f], {
          diagnosis: 'conflict',
          title: `Conflict misses: ${f.ref.id} evicted by ${top!.by}`,
          evidence: ev,
          suggestion: `${f.ref.variable} and ${other} share ${cache.name} sets and its lines leave before they are used: pad them apart; try ${steps}.`,
          rules: [...rules, 'METRIC 10.3: pad the arrays'],
          action: { kind: 'layout', label: `Pad ${steps}`, layout: padding.filters }
        })
      }
    }
    return item([f], {
      diagnosis: 'low-spatial-reuse',
      title: `Lines evicted before use: ${f.ref.id}`,
      evidence: ev,
      suggestion: irregularEvictor
        ? `A stride-${f.stride.stride} stream should use whole lines; the irregular ${top!.by} evicts them first. Load that reference with non-temporal hints (or gather its data first) so these lines stay.`
        : `A stride-${f.stride.stride} stream should use whole lines; they are evicted first${top ? ` (mostly by ${top.by})` : ''}. Change the layout or the order of the competing accesses.`,
      rules
    })
  }
  return null
}

/** METRIC 10.1: a reference that evicts much of the level's data while using little of its own. */
function pollutionItem(f: RefFacts, facts: RefFacts[], cache: CacheLevelConfig, item: MakeItem): AdviceItem | null {
  if (f.spatialReuse === null || f.spatialReuse >= LOW_SPATIAL_REUSE) return null
  let caused = 0
  let all = 0
  const victims = new Set<string>()
  for (const other of facts)
    for (const e of other.ref.evictors ?? []) {
      if (e.level !== cache.name) continue
      all += e.count
      if (e.by === f.ref.id && other.ref.id !== f.ref.id) {
        caused += e.count
        victims.add(other.ref.id)
      }
    }
  if (all === 0 || caused / all < 0.25 || victims.size < 2) return null
  if (f.regularity !== null && f.regularity >= REGULAR) return null // regular: the conflict/stride rules speak for it
  return item([f], {
    diagnosis: 'pollution',
    title: `Cache pollution: ${f.ref.id} evicts others' data`,
    evidence: [
      `causes ${pct(caused / all)} of all ${cache.name} evictions (${plural(caused, 'eviction')} of ${[...victims].slice(0, 4).join(', ')}${victims.size > 4 ? ', …' : ''})`,
      `spatial reuse ${fixed(f.spatialReuse)}`,
      f.temporalFraction === null ? `${streamClause(f)}` : `temporal hit fraction ${fixed(f.temporalFraction)}; ${streamClause(f)}`
    ],
    suggestion: `Its lines are hardly reused but push out data others reuse: load it with non-temporal (cache-bypass) hints so ${cache.name} keeps the reused data.`,
    rules: ['METRIC Fig. 8: temporal hit fraction (low → cache hinting)', 'METRIC 10.1: cache reuse hinting']
  })
}

/**
 * The advisor: every reference of a run holding a large share of one cache level's misses
 * gets a diagnosis, ranked by misses, with the numbers that triggered it: METRIC's Figure 8
 * read from its metrics (miss ratio, spatial reuse, temporal hits, evictor cycles, regularity,
 * strides, stream lengths), the optimizations Mohan et al. Table 1 relates to its streams, and
 * the three Cs of its misses (`miss-classes.ts`: a fully associative shadow of the level says
 * which misses only the set mapping causes). Pure: a RunReport (+ classes) in, a RunAdvice out.
 *
 * Rules (thresholds are the papers' rules of thumb; "regular" >= 0.8 and "irregular" < 0.6
 * as in Mohan 2.1 / Table 1, "low" spatial reuse < 0.5, "large" stride >= a cache line or 32+
 * elements; "dominant" miss class >= half the misses):
 *  - conflict only where the set mapping says so: a cycle of evictors (SCC of edges carrying
 *    >= 10% of an evictee's evictions) whose misses are mostly conflict misses -> pad the
 *    arrays apart (one-click external padding); a cycle whose misses a fully associative
 *    cache of the same size has too is not a conflict (its members' own rules speak);
 *  - irregular (< 0.6) with misses: a pointer chase (the address comes from the previous
 *    load, `access-form.ts`) -> linearize the structure; an indexed gather -> sort the
 *    indices / gather through the index vector; otherwise reorder or hint non-temporal; each
 *    says which data structures evict its structure's lines and what to change
 *    (`evictor-facts.ts`); short runs of one small stride using whole lines are sequential
 *    runs (next-line prefetcher), not irregular; capacity misses at irregular places get no
 *    loop tiling;
 *  - regular with a large stride (a column walk when the stride is a row of its array) ->
 *    loop interchange or blocking; when its misses are conflict misses the set mapping is
 *    quoted and padding each row by a line is the one click (else a stride prefetcher);
 *  - regular, short stride: conflict-dominated -> pad against its top evictor; capacity-
 *    dominated -> tiling or a bigger cache (one click); about one miss per line -> streaming
 *    (compulsory) misses -> prefetching when streams are long (one click);
 *  - any other reference holding >= 5% of the misses: its dominant miss class;
 *  - a reference causing a large share of the level's evictions while using little of what
 *    it brings in -> it pollutes the cache -> non-temporal hints (METRIC 10.1);
 *  - a data TLB level: a reference missing in it on most accesses with a large share of its
 *    misses -> keep the loop within fewer pages, or huge pages (one click: 2 MiB pages).
 */
import type { AdviceItem, CacheLevelConfig, MissClasses, RunAdvice, RunReport, VariableInfo } from '../../../shared/domain'
import { StrideError } from '../../../shared/errors'
import { groupCause } from '../../../shared/miss-causes'
import { cyclicComponents } from '../../../shared/strongly-connected'
import { classClause, classesOf, count, factsOf, fixed, kib, LOW_SPATIAL_REUSE, pct, plural, REGULAR, streamClause, type MakeItem, type RefFacts } from './facts'
import { computeSetPadding, isRefusal } from './padding'
import { LARGE_SHARE, referenceItem, type RuleContext } from './reference-rules'
import { tlbItems } from './tlb-rules'
import { structureEvictions } from './evictor-facts'

export { IRREGULAR, LOW_SPATIAL_REUSE, REGULAR } from './facts'
/** Evictor edges below this share of the evictee's evictions do not make a cycle. */
export const CYCLE_EDGE_FRACTION = 0.1
/** Hot references: the most-missing ones covering this share of the misses (at most MAX_HOT), and any with LARGE_SHARE. */
const HOT_SHARE = 0.95
const MAX_HOT = 25

export interface AdviceOptions {
  level: string
  /** The three Cs of the level's misses per reference; without them no miss is called a conflict. */
  classes?: MissClasses
  /**
   * Whether a source file can take a code change (a what-if transform reads the loops from it):
   * a loop in a library whose source is not here (glibc's malloc.c) is not one the user can
   * change or Stride can simulate changed. Every file, when not given.
   */
  transformable?: (file: string) => boolean
}

export function levelConfig(report: RunReport, level: string): CacheLevelConfig {
  const l = report.config.levels.find((c) => c.name === level)
  if (!l) {
    const names = report.config.levels.map((c) => c.name).join(', ')
    throw new StrideError(`"${level}" is not a cache level of run ${report.run}; pick one of ${names}.`, 'invalid-input')
  }
  return l
}

export function diagnoseRun(report: RunReport, { level, classes, transformable = () => true }: AdviceOptions): RunAdvice {
  const cache = levelConfig(report, level)
  if (classes && classes.level !== level) throw new Error(`miss classes of ${classes.level} given for ${level}`)
  const catalog = new Map((report.variables ?? []).map((v) => [v.name, v]))
  const facts = report.references.map((r) => factsOf(r, level, catalog, classes?.byReference[r.id] ?? null))
  const byId = new Map(facts.map((f) => [f.ref.id, f]))
  const totalMisses = facts.reduce((s, f) => s + f.misses, 0)

  // Hot references: most misses first, until HOT_SHARE of the misses is covered; a reference
  // with a large share of its own is always in.
  const ranked = facts.filter((f) => f.misses > 0).sort((a, b) => b.misses - a.misses || a.ref.id.localeCompare(b.ref.id))
  const hot: RefFacts[] = []
  let covered = 0
  for (const f of ranked) {
    const large = f.misses >= LARGE_SHARE * totalMisses
    if (!large && (hot.length >= MAX_HOT || covered >= HOT_SHARE * totalMisses)) break
    hot.push(f)
    covered += f.misses
  }
  const isHot = new Set(hot.map((f) => f.ref.id))
  const items: AdviceItem[] = []
  const inCycle = new Set<string>()
  const item: MakeItem = (members, rest) => {
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
  const ctx: RuleContext = { cache, report, byId, catalog, totalMisses, item, evictions: structureEvictions(report.references, level), transformable }

  // --- Cycles of evictors (METRIC Fig. 8), a conflict only where the set mapping says so ---
  for (const members of evictorCycles(facts, level)) {
    if (!members.some((m) => isHot.has(m.ref.id))) continue
    if (!isConflictCycle(members, classes)) continue
    members.forEach((m) => inCycle.add(m.ref.id))
    items.push(cycleItem(members, ctx))
  }

  // --- Per hot reference (METRIC Fig. 8 rows, Mohan Table 1) ---
  const evictions = evictionsAt(facts, level)
  for (const f of hot) {
    if (!inCycle.has(f.ref.id)) {
      const own = referenceItem(f, ctx)
      if (own) items.push(own)
    }
    const polluting = pollutionItem(f, evictions, cache, item)
    if (polluting) items.push(polluting)
  }

  const merged = [...mergeAlike(items, byId, cache.name, totalMisses), ...tlbItems(report, catalog)]
  merged.sort((a, b) => b.misses - a.misses || a.references[0]!.localeCompare(b.references[0]!))
  return { run: report.run, level, items: merged, examined: hot.length, totalMisses, ...(classes ? { classes: withMisses(classes) } : {}) }
}

/** Strongly connected components of the level's evictor edges (>= CYCLE_EDGE_FRACTION), members sorted. */
function evictorCycles(facts: RefFacts[], level: string): RefFacts[][] {
  const index = new Map(facts.map((f, i) => [f.ref.id, i]))
  const adjacency: number[][] = facts.map(() => [])
  for (const f of facts)
    for (const e of f.ref.evictors ?? []) {
      const from = index.get(e.by)
      if (e.level !== level || from === undefined || e.fraction < CYCLE_EDGE_FRACTION) continue
      adjacency[from]!.push(index.get(f.ref.id)!)
    }
  return cyclicComponents(adjacency).map((comp) =>
    comp.map((i) => facts[i]!).sort((a, b) => (a.ref.variable ?? a.ref.id).localeCompare(b.ref.variable ?? b.ref.id) || a.ref.id.localeCompare(b.ref.id))
  )
}

/**
 * The classes as the advice carries them: only the references with misses at the level. A
 * whole program's references mostly have none (jsoncpp: 11,411 of 13,023), and listing them
 * was most of the advice's bytes (1.4 of its 1.6 MB), sent to the app and stored with the trace.
 */
function withMisses(classes: MissClasses): MissClasses {
  const byReference: MissClasses['byReference'] = {}
  for (const [id, c] of Object.entries(classes.byReference)) if (c.compulsory + c.capacity + c.conflict > 0) byReference[id] = c
  return { ...classes, byReference }
}

/**
 * A cycle of evictors is a conflict only when most of its members' misses are conflict
 * misses (a fully associative cache of the same size would have kept the lines): capacity
 * cycles, streams missing once per line and irregular sweeps evict each other too. The rule
 * is shared with the evictor panel (`shared/miss-causes.ts`).
 */
function isConflictCycle(members: RefFacts[], classes: MissClasses | undefined): boolean {
  return groupCause(members.map((m) => m.ref.id), classes)?.cause === 'conflict'
}

function cycleItem(members: RefFacts[], ctx: RuleContext): AdviceItem {
  const { cache, catalog, item } = ctx
  const names = members.map((m) => m.ref.variable ?? m.ref.id)
  const distinctVars = [...new Set(members.map((m) => m.ref.variable).filter((v): v is string => v !== null))]
  const label = (distinctVars.length === members.length ? distinctVars : members.map((m) => m.ref.id)).join('↔')
  const withReuse = members.filter((m) => m.spatialReuse !== null)
  const reuse = withReuse.length > 0 ? withReuse.reduce((s, m) => s + m.spatialReuse!, 0) / withReuse.length : null
  const misses = members.reduce((s, m) => s + m.misses, 0)
  const accesses = members.reduce((s, m) => s + m.accesses, 0)
  const strides = [...new Set(members.map((m) => m.stride?.stride ?? null))]
  const allRegular = members.every((m) => m.regularity !== null && m.regularity >= REGULAR)
  const edgeShare = (from: RefFacts, to: RefFacts) => to.ref.evictors?.find((e) => e.level === cache.name && e.by === from.ref.id && e.fraction >= CYCLE_EDGE_FRACTION)?.fraction

  const shares: Array<{ text: string; share: number }> = []
  for (const to of members)
    for (const from of members) {
      const share = edgeShare(from, to)
      if (share !== undefined && from !== to) shares.push({ text: `${from.ref.id} evicts ${to.ref.id} (${pct(share)} of its evictions)`, share })
    }
  // The strongest edges; a big component would otherwise make a paragraph.
  const MAX_EDGES = 6
  const edges = shares.sort((a, b) => b.share - a.share).slice(0, MAX_EDGES).map((e) => e.text)
  if (shares.length > MAX_EDGES) edges.push(`${shares.length - MAX_EDGES} more`)
  const sets = members.map((m) => m.classes?.sets).filter((x): x is number => typeof x === 'number')
  const evidence = [
    `evictor cycle ${members.map((m) => m.ref.id).join(' ↔ ')}: ${edges.join('; ')}`,
    `miss ratio ${fixed(accesses > 0 ? misses / accesses : 0)} (${count(misses)} of ${count(accesses)} at ${cache.name})`,
    classClause(classesOf(members), cache)!,
    ...(sets.length === members.length ? [`their lines fall in ${sets.map(count).join(', ')} of the ${count(cache.size / cache.assoc / cache.lineSize)} ${cache.name} sets (${cache.assoc} ways each)`] : [])
  ]
  if (reuse !== null) evidence.push(`spatial reuse ${fixed(reuse)} on average (${Math.round(reuse * cache.lineSize)} of each ${cache.lineSize}-byte line used before eviction)`)
  if (allRegular && strides.length === 1 && strides[0] !== null) evidence.push(`all regular, all stride ${strides[0]}`)
  else evidence.push(members.map((m) => `${m.ref.id}: ${streamClause(m)}`).join('; '))

  const vars = distinctVars.map((v) => catalog.get(v) ?? ({ name: v, kind: 'unknown', start: null } as VariableInfo))
  const padding = computeSetPadding(vars, cache)
  const lowStride = strides.every((s) => s !== null && Math.abs(s) < cache.lineSize)
  const why = lowStride && allRegular ? 'regular, low-stride references that should use whole lines' : 'references'
  const common = {
    diagnosis: 'conflict' as const,
    title: `Conflict misses: evictor cycle ${label}`,
    evidence,
    rules: ['METRIC Fig. 8: evictor references + low spatial reuse → conflict misses', 'Hill & Smith: conflict = misses a fully associative cache of the same size does not have', 'METRIC 10.3: pad the arrays', 'Mohan Table 1: data layout (few long streams, short strides, high miss rate)']
  }
  if (isRefusal(padding)) {
    return item(members, {
      ...common,
      suggestion: `${names.join(', ')} are ${why} evicting each other in the same sets although they would fit: change the data layout (pad or interleave them). Stride cannot try it here: ${padding.reason}.`
    })
  }
  const steps = padding.filters.map((f) => `${f.variable} +${kib(f.kind === 'external' ? f.bytes : 0)}`).join(', ')
  return item(members, {
    ...common,
    suggestion: `${padding.order.join(', ')} are ${why}, mapped to the same ${cache.name} sets although they would fit: pad the arrays; try +${kib(padding.spacing)} between them (${steps}).`,
    action: { kind: 'layout', label: `Pad ${steps}`, layout: padding.filters }
  })
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

/** The level's evictions: all of them, and per evictor those of other references' lines and whose. */
interface Evictions {
  all: number
  byEvictor: Map<string, { caused: number; victims: Set<string> }>
}

/** One pass over every reference's evictors (per hot reference, it was most of a diagnosis of a whole program). */
function evictionsAt(facts: RefFacts[], level: string): Evictions {
  let all = 0
  const byEvictor = new Map<string, { caused: number; victims: Set<string> }>()
  for (const other of facts)
    for (const e of other.ref.evictors ?? []) {
      if (e.level !== level) continue
      all += e.count
      if (e.by === other.ref.id) continue
      let mine = byEvictor.get(e.by)
      if (!mine) byEvictor.set(e.by, (mine = { caused: 0, victims: new Set() }))
      mine.caused += e.count
      mine.victims.add(other.ref.id)
    }
  return { all, byEvictor }
}

/** METRIC 10.1: a reference that evicts much of the level's data while using little of its own. */
function pollutionItem(f: RefFacts, { all, byEvictor }: Evictions, cache: CacheLevelConfig, item: MakeItem): AdviceItem | null {
  if (f.spatialReuse === null || f.spatialReuse >= LOW_SPATIAL_REUSE) return null
  const { caused, victims } = byEvictor.get(f.ref.id) ?? { caused: 0, victims: new Set<string>() }
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

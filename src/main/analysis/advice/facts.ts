/**
 * What the advisor's rules read of one reference at one level, computed once, and the
 * evidence clauses they quote (each a short sentence with its number).
 */
import type { AdviceItem, CacheLevelConfig, MissClassCount, ReferenceStats, VariableInfo } from '../../../shared/domain'
import { causeOf } from '../../../shared/miss-causes'

export const REGULAR = 0.8
export const IRREGULAR = 0.6
export const LOW_SPATIAL_REUSE = 0.5

export interface RefFacts {
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
  variable: VariableInfo | null
  location: string
  /** The three Cs of its misses at the level, when the trace was replayed. */
  classes: MissClassCount | null
}

/** Builds an item from its members (references, misses and share are summed from them). */
export type MakeItem = (members: RefFacts[], rest: Omit<AdviceItem, 'references' | 'variables' | 'locations' | 'misses' | 'share'>) => AdviceItem

export const fixed = (x: number, d = 2) => x.toFixed(d)
export const pct = (x: number) => `${(100 * x).toFixed(x < 0.001 ? 2 : x < 0.1 ? 1 : 0)}%`
export const kib = (bytes: number) => (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`)
export const count = (n: number) => n.toLocaleString('en-US')
/** A data size for reading ("7.6 MiB"), not for exact byte counts (padding uses `kib`). */
export const size = (bytes: number) =>
  bytes % 1024 === 0 || bytes < 1024 ? kib(bytes) : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`
export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1)

export function factsOf(ref: ReferenceStats, level: string, catalog: Map<string, VariableInfo>, classes: MissClassCount | null): RefFacts {
  const s = ref.levels[level]
  const misses = s?.misses ?? 0
  const accesses = (s?.hits ?? 0) + misses
  const st = ref.streams
  const variable = (ref.variable && catalog.get(ref.variable)) || null
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
    elementSize: variable?.elementSize || null,
    variable,
    location: ref.file !== null && ref.line !== null ? `${baseName(ref.file)}:${ref.line}` : ref.pc,
    classes
  }
}

/** "b_Read_42@matmul+0x4f (b[k][j])": the reference and the source it stands for. */
export function named(f: RefFacts): string {
  const expr = f.ref.sourceExpr?.trim()
  return expr && expr.length <= 40 && !expr.includes('\n') ? `${f.ref.id} (${expr})` : f.ref.id
}

export function streamClause(f: RefFacts): string {
  if (f.regularity === null) return 'no stream metrics in this session'
  const kind = f.regularity >= REGULAR ? 'regular' : f.regularity < IRREGULAR ? 'irregular' : 'partly regular'
  const stride = f.stride ? `, ${f.distinctStrides === 1 ? 'single stride' : 'dominant stride'} ${f.stride.stride}${f.distinctStrides === 1 ? '' : ` (${pct(f.stride.fraction)} of streams)`}` : ''
  return `${kind} (regularity ${fixed(f.regularity)})${stride}, mean stream ${Math.round(f.meanStream ?? 0)}`
}

export function missClause(f: RefFacts, level: string): string {
  return `miss ratio ${fixed(f.ratio)} (${count(f.misses)} of ${count(f.accesses)} at ${level})`
}

export function reuseClause(f: RefFacts, line: number): string | null {
  return f.spatialReuse === null ? null : `spatial reuse ${fixed(f.spatialReuse)} (${Math.round(f.spatialReuse * line)} of each ${line}-byte line used before eviction)`
}

/** The three Cs of some references' misses, summed. */
export function classesOf(members: RefFacts[]): MissClassCount | null {
  if (members.some((m) => m.classes === null)) return null
  return members.reduce((s, m) => ({ compulsory: s.compulsory + m.classes!.compulsory, capacity: s.capacity + m.classes!.capacity, conflict: s.conflict + m.classes!.conflict, sets: null }), {
    compulsory: 0,
    capacity: 0,
    conflict: 0,
    sets: null
  } as MissClassCount)
}

/** The class holding at least half of the misses, if one does (the evictor panel's rule too). */
export function dominantClass(c: MissClassCount | null): 'compulsory' | 'capacity' | 'conflict' | null {
  const cause = c ? causeOf(c) : null
  return cause === 'first-touch' ? 'compulsory' : cause === 'mixed' ? null : cause
}

/** "3 Cs: 12 compulsory, 0 capacity, 110,795 conflict (a fully associative 32 KiB L1 would have hit 110,795)". */
export function classClause(c: MissClassCount | null, cache: CacheLevelConfig): string | null {
  if (!c) return null
  const all = c.compulsory + c.capacity + c.conflict
  if (all === 0) return null
  return `misses by cause: ${count(c.compulsory)} first touches, ${count(c.capacity)} capacity, ${count(c.conflict)} conflict (${pct(c.conflict / all)}: a fully associative ${kib(cache.size)} ${cache.name} would have hit them)`
}

/**
 * The set mapping of a strided walk: a stride of k lines visits sets / gcd(k, sets) of the
 * sets before it comes back, so at most that many x ways of its lines stay cached at once
 * (a 4 KiB stride on a 4 KiB way visits one set: 8 lines of a 64-line column stay).
 */
export function strideSetsClause(f: RefFacts, cache: CacheLevelConfig): string | null {
  const stride = f.stride ? Math.abs(f.stride.stride) : 0
  if (stride === 0 || stride % cache.lineSize !== 0) return null
  const sets = cache.size / cache.assoc / cache.lineSize
  const lines = stride / cache.lineSize
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
  const visited = sets / gcd(lines, sets)
  const run = Math.round(f.meanStream ?? 0)
  return `a stride of ${count(stride)} bytes (${count(lines)} lines) visits ${count(visited)} of the ${count(sets)} ${cache.name} sets, so at most ${count(visited * cache.assoc)} of its lines stay cached at once${run > visited * cache.assoc ? `; a walk is ${count(run)} long` : ''}`
}

/** "its lines fall in 16 of the 64 L1 sets" (over the whole run). */
export function setsClause(f: RefFacts, cache: CacheLevelConfig): string | null {
  const sets = f.classes?.sets
  if (sets === null || sets === undefined) return null
  const all = cache.size / cache.assoc / cache.lineSize
  return `its lines fall in ${count(sets)} of the ${count(all)} ${cache.name} sets`
}

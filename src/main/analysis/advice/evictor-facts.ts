/**
 * Which data structures evict which at one level: the references' evictor lists (the run's
 * `run_evictors`) rolled up to the data structures of evictee and evictor, so an irregular
 * program's diagnosis can say "the input buffer and the hash table evict each other" instead
 * of naming one instruction. Rules:
 *  - an evictee reference counts under its data structure (`unknown data` when it has none);
 *  - an evictor is a reference (its data structure), or one of the simulator's own owners
 *    (`prefetch`, `write-back`, `rest of the program`), kept as named;
 *  - a heap structure is shown with the name the program's source gives it when one
 *    reference's source expression indexes it (`hashTable (heap@lz4frame.c:123)`).
 */
import type { ReferenceStats } from '../../../shared/domain'
import { REST_OF_PROGRAM } from '../../../shared/cache-context'
import { pct } from './facts'

const UNKNOWN = 'unknown data'
/** Evictors that are the simulator's own traffic, not a traced data structure. */
const SIMULATOR_OWNERS = new Set(['prefetch', 'write-back', REST_OF_PROGRAM])

export interface StructureEvictions {
  /** victim structure -> evictor structure -> evictions at the level. */
  readonly matrix: Map<string, Map<string, number>>
  /** All evictions of each structure's lines at the level. */
  readonly totals: Map<string, number>
  /** A structure as the advice names it. */
  label(structure: string): string
}

/** The source's own name of a heap block: the array its references index (`hashTable[h]` -> `hashTable`). */
function sourceName(refs: ReferenceStats[]): string | null {
  const counts = new Map<string, number>()
  for (const r of refs) {
    const m = /^\s*(?:\(\s*\w[\w\s*]*\)\s*)?([A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*)\s*\[/.exec(r.sourceExpr ?? '')
    if (m) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + r.reads + r.writes)
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null
}

export function structureEvictions(references: ReferenceStats[], level: string): StructureEvictions {
  const structureOf = new Map(references.map((r) => [r.id, r.variable ?? UNKNOWN]))
  const matrix = new Map<string, Map<string, number>>()
  const totals = new Map<string, number>()
  for (const r of references) {
    const victim = r.variable ?? UNKNOWN
    for (const e of r.evictors ?? []) {
      if (e.level !== level || e.count <= 0) continue
      const by = structureOf.get(e.by) ?? e.by
      const row = matrix.get(victim) ?? new Map<string, number>()
      row.set(by, (row.get(by) ?? 0) + e.count)
      matrix.set(victim, row)
      totals.set(victim, (totals.get(victim) ?? 0) + e.count)
    }
  }
  const byStructure = new Map<string, ReferenceStats[]>()
  for (const r of references) if (r.variable?.startsWith('heap@')) byStructure.set(r.variable, [...(byStructure.get(r.variable) ?? []), r])
  const labels = new Map<string, string>()
  for (const [v, refs] of byStructure) {
    const name = sourceName(refs)
    if (name) labels.set(v, `${name} (${v})`)
  }
  return { matrix, totals, label: (s) => labels.get(s) ?? s }
}

export interface EvictorShare {
  by: string
  count: number
  /** Of all evictions of the victim's lines at the level. */
  fraction: number
}

/** Who evicts `structure`'s lines, most first (shares of at least `min`). */
export function evictorsOf(ev: StructureEvictions, structure: string, min = 0.1): EvictorShare[] {
  const total = ev.totals.get(structure) ?? 0
  if (total === 0) return []
  return [...(ev.matrix.get(structure) ?? new Map<string, number>()).entries()]
    .map(([by, count]) => ({ by, count, fraction: count / total }))
    .filter((s) => s.fraction >= min)
    .sort((a, b) => b.count - a.count || a.by.localeCompare(b.by))
}

/** "hashTable (heap@lz4frame.c:123) 61%, ress.srcBuffer itself 35%". */
function sharesText(ev: StructureEvictions, victim: string, shares: EvictorShare[]): string {
  return shares.map((s) => `${s.by === victim ? `${ev.label(s.by)} itself` : ev.label(s.by)} ${pct(s.fraction)}`).join(', ')
}

/**
 * The evidence clause and the sentence of what to change for a structure whose references
 * miss: who evicts its lines, and whether it and its main evictor evict each other. Null when
 * the run kept no evictions of its lines at the level.
 */
export function evictorStory(ev: StructureEvictions, structure: string | null, level: string, cacheSize: string): { evidence: string; change: string; structures: string[] } | null {
  const victim = structure ?? UNKNOWN
  const shares = evictorsOf(ev, victim)
  if (shares.length === 0) return null
  const name = ev.label(victim)
  const evidence = `in ${level}, ${name}'s lines are evicted by ${sharesText(ev, victim, shares)} (of ${(ev.totals.get(victim) ?? 0).toLocaleString('en-US')} evictions)`
  const top = shares[0]!
  if (top.by === victim) {
    // A second structure taking a large share competes for the level as well: name it.
    const rival = shares.find((s) => s.by !== victim && s.fraction >= 0.2 && !SIMULATOR_OWNERS.has(s.by))
    const also = rival ? ` ${ev.label(rival.by)} takes another ${pct(rival.fraction)} of its lines: the two together need more room than ${level} has; shrinking either helps.` : ''
    return {
      evidence,
      change: `${name} ${top.fraction >= 0.5 ? 'mostly evicts its own lines' : `evicts its own lines more than anything else does (${pct(top.fraction)})`}: the part of it used between two uses of a line is larger than the ${cacheSize} ${level}.${also} Make that part smaller (smaller or fewer entries, or the work done in blocks that fit) or bring the uses of a line closer together.`,
      structures: rival ? [victim, rival.by] : [victim]
    }
  }
  const back = evictorsOf(ev, top.by).find((s) => s.by === victim)
  const other = ev.label(top.by)
  if (SIMULATOR_OWNERS.has(top.by))
    return { evidence, change: `${top.fraction >= 0.5 ? 'Most' : `The largest share (${pct(top.fraction)})`} of ${name}'s evictions ${top.fraction >= 0.5 ? 'are' : 'is'} made by ${top.by === 'rest of the program' ? 'the rest of the program (code outside the traced functions)' : `${top.by} traffic`}, not by another traced data structure.`, structures: [victim] }
  return {
    evidence: back ? `${evidence}; ${other}'s lines are evicted by ${name} ${pct(back.fraction)}` : evidence,
    change: back
      ? `${name} and ${other} evict each other from the ${cacheSize} ${level}: together they do not fit. Shrink the one reused less (smaller or fewer entries), or work in blocks small enough for both to stay.`
      : `${other} evicts ${name}'s lines before they are used again: shrink ${other} or touch it less between ${name}'s uses, or load it with non-temporal hints if it is not reused.`,
    structures: [victim, top.by]
  }
}

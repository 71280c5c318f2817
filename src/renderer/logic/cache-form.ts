/**
 * The launch dialog's cache levels as the user types them (text fields), and their
 * validation into the contract's HierarchyConfig with the contract's own schema, so the
 * form rejects exactly what the backend would.
 */
import { hierarchySchema } from '../../shared/schemas'
import type { CacheLevelConfig, HierarchyConfig, HostHierarchy, ReplacementPolicy } from '../../shared/domain'
import { formatSize, parseSize } from '../../shared/sizes'

export interface CacheLevelDraft {
  name: string
  size: string
  assoc: string
  lineSize: string
  policy?: ReplacementPolicy
  /** Options the form does not edit (write policy, prefetcher, seed…), kept as the run had them. */
  kept?: Omit<CacheLevelConfig, 'name' | 'size' | 'assoc' | 'lineSize' | 'policy'>
}

/**
 * What the forms start from when the backend could not say what this machine's caches are
 * (a failed call; unreadable caches come back as Cachegrind's defaults already): Cachegrind's
 * own x86-64 defaults.
 */
export const FALLBACK_LEVELS: CacheLevelDraft[] = [
  { name: 'D1', size: '64K', assoc: '2', lineSize: '64' },
  { name: 'LL', size: '256K', assoc: '8', lineSize: '64' }
]

/** The host's D1 and LL as form rows: the forms' default hierarchy. */
export function hostDrafts(host: HostHierarchy): CacheLevelDraft[] {
  return host.config.levels.map(levelDraft)
}

/** A configured level as form text (sizes in the K/M form people type). */
export function levelDraft(level: CacheLevelConfig): CacheLevelDraft {
  const { name, size, assoc, lineSize, policy, ...kept } = level
  return { name, size: formatSize(size), assoc: String(assoc), lineSize: String(lineSize), policy, kept }
}

/** A sensible next level when the user adds one (L2 256K 8-way, L3 8M 16-way). */
/** A new outer level: its lines are never smaller than the level inside it. */
export function nextLevelDraft(existing: CacheLevelDraft[]): CacheLevelDraft {
  const n = existing.length + 1
  const inner = parseSize(existing[existing.length - 1]?.lineSize ?? '64') ?? 64
  const lineSize = String(Math.max(64, inner))
  return n === 2 ? { name: 'L2', size: '256K', assoc: '8', lineSize } : { name: `L${n}`, size: '8M', assoc: '16', lineSize }
}

/** Allowed but unusual set-ups worth a word (an outer level with smaller lines than an inner one). */
export function cacheFormWarnings(levels: CacheLevelDraft[]): string[] {
  const out: string[] = []
  for (let i = 1; i < levels.length; i++) {
    const inner = parseSize(levels[i - 1]!.lineSize)
    const outer = parseSize(levels[i]!.lineSize)
    if (inner !== null && outer !== null && outer < inner)
      out.push(`${levels[i]!.name}'s ${outer}-byte lines are smaller than ${levels[i - 1]!.name}'s ${inner}-byte lines: each ${levels[i - 1]!.name} miss then fetches several ${levels[i]!.name} lines (allowed, but real hierarchies do not do this).`)
  }
  return out
}

export type CacheFormResult = { ok: true; config: HierarchyConfig } | { ok: false; error: string }

export function parseCacheForm(levels: CacheLevelDraft[], cachegrindCompatible: boolean): CacheFormResult {
  const parsed = []
  for (const l of levels) {
    const size = parseSize(l.size)
    if (size === null) return { ok: false, error: `${l.name || 'Level'}: size "${l.size}" is not a size (e.g. 32K).` }
    const lineSize = parseSize(l.lineSize)
    if (lineSize === null)
      return { ok: false, error: `${l.name || 'Level'}: line size "${l.lineSize}" is not a size (e.g. 64).` }
    const assoc = Number(l.assoc)
    if (!Number.isInteger(assoc) || assoc <= 0)
      return { ok: false, error: `${l.name || 'Level'}: associativity must be a positive whole number.` }
    parsed.push({ ...l.kept, name: l.name.trim(), size, assoc, lineSize, policy: l.policy ?? ('lru' as const) })
  }
  const result = hierarchySchema.safeParse({ levels: parsed, cachegrindCompatible })
  if (!result.success) {
    const issue = result.error.issues[0]
    const idx = issue?.path[1]
    const who = typeof idx === 'number' ? `${parsed[idx]?.name || `Level ${idx + 1}`}: ` : ''
    return { ok: false, error: `${who}${issue?.message ?? 'invalid cache configuration'}.` }
  }
  return { ok: true, config: result.data as HierarchyConfig }
}

/** Parse the optional max-events field: empty means no limit. */
export function parseMaxEvents(text: string): { ok: true; value: number | null } | { ok: false; error: string } {
  const t = text.trim().replace(/[,_\s]/g, '')
  if (t === '') return { ok: true, value: null }
  const m = /^(\d+(?:\.\d+)?)([kKmMgG]?)$/.exec(t)
  if (!m) return { ok: false, error: 'Max events must be a whole number (e.g. 1000000 or 1M), or empty for no limit.' }
  const mult = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g']
  const value = Number(m[1]) * mult
  if (!Number.isInteger(value) || value <= 0 || value > 1e12)
    return { ok: false, error: 'Max events must be a positive whole number up to 10^12.' }
  return { ok: true, value }
}

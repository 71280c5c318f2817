/**
 * The launch dialog's cache levels as the user types them (text fields), and their
 * validation into the contract's HierarchyConfig with the contract's own schema, so the
 * form rejects exactly what the backend would.
 */
import { hierarchySchema } from '../../shared/api'
import type { CacheLevelConfig, HierarchyConfig, ReplacementPolicy } from '../../shared/domain'
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

export const DEFAULT_LEVELS: CacheLevelDraft[] = [{ name: 'L1', size: '32K', assoc: '8', lineSize: '64' }]

/** A configured level as form text (sizes in the K/M form people type). */
export function levelDraft(level: CacheLevelConfig): CacheLevelDraft {
  const { name, size, assoc, lineSize, policy, ...kept } = level
  return { name, size: formatSize(size), assoc: String(assoc), lineSize: String(lineSize), policy, kept }
}

/** A sensible next level when the user adds one (L2 256K 8-way, L3 8M 16-way). */
export function nextLevelDraft(existing: CacheLevelDraft[]): CacheLevelDraft {
  const n = existing.length + 1
  return n === 2
    ? { name: 'L2', size: '256K', assoc: '8', lineSize: '64' }
    : { name: `L${n}`, size: '8M', assoc: '16', lineSize: '64' }
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

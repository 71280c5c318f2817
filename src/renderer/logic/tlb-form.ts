/**
 * The what-if form's data TLB levels as typed (text fields), validated into the contract's
 * TlbLevelConfig with the contract's own schema, so the form refuses what the backend would.
 */
import type { ReplacementPolicy, TlbLevelConfig } from '../../shared/domain'
import { tlbLevelSchema } from '../../shared/schemas'
import { formatSize, parseSize } from '../../shared/sizes'

export interface TlbLevelDraft {
  name: string
  entries: string
  assoc: string
  pageSize: string
  policy: ReplacementPolicy
}

export function tlbDraft(t: TlbLevelConfig): TlbLevelDraft {
  return { name: t.name, entries: String(t.entries), assoc: String(t.assoc), pageSize: formatSize(t.pageSize), policy: t.policy ?? 'lru' }
}

/** A new level: a 64-entry 4-way DTLB of 4 KiB pages first, then a second-level TLB of 2048 entries, 16-way (power-of-two sets). */
export function newTlbDraft(existing: TlbLevelDraft[]): TlbLevelDraft {
  return existing.length === 0
    ? { name: 'DTLB', entries: '64', assoc: '4', pageSize: '4K', policy: 'lru' }
    : { name: 'STLB', entries: '2048', assoc: '16', pageSize: existing[0]!.pageSize, policy: 'lru' }
}

export type TlbFormResult = { ok: true; tlb: TlbLevelConfig[] } | { ok: false; error: string }

const COUNT = /^\d+$/

export function parseTlbForm(drafts: TlbLevelDraft[]): TlbFormResult {
  if (drafts.length > 2) return { ok: false, error: 'At most two data TLB levels.' }
  const out: TlbLevelConfig[] = []
  for (const d of drafts) {
    const who = d.name.trim() || `TLB level ${out.length + 1}`
    if (!COUNT.test(d.entries.trim())) return { ok: false, error: `${who}: entries must be a whole number (e.g. 64).` }
    if (!COUNT.test(d.assoc.trim())) return { ok: false, error: `${who}: associativity must be a whole number (e.g. 4).` }
    const pageSize = parseSize(d.pageSize)
    if (pageSize === null) return { ok: false, error: `${who}: page size "${d.pageSize}" is not a size (e.g. 4K or 2M).` }
    const parsed = tlbLevelSchema.safeParse({ name: d.name.trim(), entries: Number(d.entries), assoc: Number(d.assoc), pageSize, policy: d.policy })
    if (!parsed.success) return { ok: false, error: `${who}: ${parsed.error.issues[0]?.message ?? 'invalid TLB level'}.` }
    out.push(parsed.data as TlbLevelConfig)
  }
  return { ok: true, tlb: out }
}

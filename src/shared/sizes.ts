/** Size parsing shared by the CLI and forms: bytes or K/M/G suffixes (binary: 32K = 32768). */
export function parseSize(text: string): number | null {
  const m = /^\s*(\d+)\s*([kKmMgG])?[bB]?\s*$/.exec(text)
  if (!m) return null
  const n = Number(m[1])
  const mult = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'g'] ?? 1
  const v = n * mult
  return Number.isSafeInteger(v) ? v : null
}

export function formatSize(bytes: number): string {
  for (const [unit, div] of [
    ['G', 1024 ** 3],
    ['M', 1024 ** 2],
    ['K', 1024]
  ] as const) {
    if (bytes >= div && bytes % div === 0) return `${bytes / div}${unit}`
  }
  return String(bytes)
}

/** A whole number written in decimal digits only (no 0x8, 8e0, 8.0 or blanks), else NaN. */
export function decimalInt(text: string): number {
  return /^\d{1,15}$/.test(text) ? Number(text) : NaN
}

/** An input echoed in a message, cut to a readable length. */
function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

const POLICIES = ['lru', 'fifo', 'plru', 'random'] as const
type Policy = (typeof POLICIES)[number]

export interface ParsedCacheSpec {
  name: string
  size: number
  assoc: number
  lineSize: number
  policy: Policy
  seed?: number
  writePolicy?: 'write-back' | 'write-through'
  writeAllocate?: boolean
  inclusive?: boolean
  prefetch?: 'none' | 'next-line' | 'stride'
  /** One instance for all cores (`stride simulate --cores`); private per core otherwise. */
  shared?: boolean
}

/**
 * `NAME:SIZE:ASSOC:LINE[:POLICY[:OPTIONS]]` as in CLI.md. POLICY: lru (default), fifo, plru
 * (tree pseudo-LRU), random. OPTIONS, comma-separated: wb (write-back, default) | wt
 * (write-through), wa (write-allocate, default) | nwa, incl (inclusive of the inner levels),
 * pf=next | pf=stride (prefetcher), seed=N (random policy), shared (one instance for all cores,
 * with --cores). Returns an error string on bad input.
 */
export function parseCacheSpec(spec: string): ParsedCacheSpec | string {
  const parts = spec.split(':')
  spec = shown(spec)
  if (parts.length < 4 || parts.length > 6)
    return `--cache "${spec}" must look like NAME:SIZE:ASSOC:LINE[:POLICY[:OPTIONS]], e.g. L1:32K:8:64 or L2:1M:16:64:plru:wt,pf=next`
  const [name, sizeText, assocText, lineText, policy = 'lru', options = ''] = parts as [string, string, string, string, string?, string?]
  const size = parseSize(sizeText)
  const lineSize = parseSize(lineText)
  const assoc = decimalInt(assocText)
  if (!name) return `--cache "${spec}": the level needs a name, e.g. L1`
  if (size === null) return `--cache "${spec}": size "${shown(sizeText)}" is not a size (use bytes or K/M/G, e.g. 32K)`
  if (!Number.isInteger(assoc) || assoc <= 0) return `--cache "${spec}": associativity "${shown(assocText)}" must be a positive integer`
  if (lineSize === null) return `--cache "${spec}": line size "${shown(lineText)}" is not a size (e.g. 64)`
  if (!(POLICIES as readonly string[]).includes(policy)) return `--cache "${spec}": policy "${shown(policy)}" is not one of ${POLICIES.join(', ')}`
  const out: ParsedCacheSpec = { name, size, assoc, lineSize, policy: policy as Policy }
  // Each setting once: `wb,wt` (or wa,nwa; pf=next,pf=stride; two seeds) contradicts itself.
  const given = new Map<string, string>()
  for (const opt of options.split(',').filter((o) => o !== '')) {
    const setting = opt === 'wb' || opt === 'wt' ? 'write policy' : opt === 'wa' || opt === 'nwa' ? 'write allocation' : opt.startsWith('pf=') ? 'prefetcher' : opt.startsWith('seed=') ? 'seed' : opt
    const before = given.get(setting)
    if (before !== undefined && before !== opt) return `--cache "${spec}": options "${shown(before)}" and "${shown(opt)}" set the ${setting} twice; give one`
    given.set(setting, opt)
    if (opt === 'wb') out.writePolicy = 'write-back'
    else if (opt === 'wt') out.writePolicy = 'write-through'
    else if (opt === 'wa') out.writeAllocate = true
    else if (opt === 'nwa') out.writeAllocate = false
    else if (opt === 'incl') out.inclusive = true
    else if (opt === 'shared') out.shared = true
    else if (opt === 'pf=next') out.prefetch = 'next-line'
    else if (opt === 'pf=stride') out.prefetch = 'stride'
    else if (/^seed=\d{1,15}$/.test(opt)) out.seed = Number(opt.slice(5))
    else return `--cache "${spec}": option "${shown(opt)}" is not one of wb, wt, wa, nwa, incl, shared, pf=next, pf=stride, seed=N`
  }
  return out
}

/** `NAME:ENTRIES:ASSOC:PAGE[:POLICY]` (a data TLB level). Returns an error string on bad input. */
export function parseTlbSpec(spec: string): { name: string; entries: number; assoc: number; pageSize: number; policy?: Policy } | string {
  const parts = spec.split(':')
  spec = shown(spec)
  if (parts.length < 4 || parts.length > 5) return `--tlb "${spec}" must look like NAME:ENTRIES:ASSOC:PAGE[:POLICY], e.g. DTLB:64:4:4K`
  const [name, entriesText, assocText, pageText, policy] = parts as [string, string, string, string, string?]
  const entries = decimalInt(entriesText)
  const assoc = decimalInt(assocText)
  const pageSize = parseSize(pageText)
  if (!name) return `--tlb "${spec}": the level needs a name, e.g. DTLB`
  if (!Number.isInteger(entries) || entries <= 0) return `--tlb "${spec}": entries "${shown(entriesText)}" must be a positive integer`
  if (!Number.isInteger(assoc) || assoc <= 0) return `--tlb "${spec}": associativity "${shown(assocText)}" must be a positive integer`
  if (pageSize === null) return `--tlb "${spec}": page size "${shown(pageText)}" is not a size (e.g. 4K)`
  if (policy !== undefined && !(POLICIES as readonly string[]).includes(policy)) return `--tlb "${spec}": policy "${shown(policy)}" is not one of ${POLICIES.join(', ')}`
  return policy ? { name, entries, assoc, pageSize, policy: policy as Policy } : { name, entries, assoc, pageSize }
}

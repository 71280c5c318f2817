/**
 * The host's cache hierarchy as Cachegrind simulates it by default (its D1 and LL), from what
 * the reader (`services/host-hierarchy.ts`) found: Linux sysfs's cache directories, or the
 * CPUID registers Cachegrind itself decodes on AMD. Pure: file texts and register values in,
 * a hierarchy and one line about it out.
 *
 * Cachegrind's rules (Valgrind's coregrind/m_cache.c, cachegrind/cg_arch.c):
 * - D1 is the level-1 data cache; LL is the unified cache of the highest level (the L3 when
 *   there is one); without I1, D1 and such an LL it uses its fixed defaults.
 * - On AMD it reads CPUID 0x80000005/0x80000006 (L2/L3 associativity from a 4-bit code, an
 *   unknown code or "see leaf 0x8000001D" read as 1-way); on Intel, leaf 4, which is what
 *   Linux's sysfs shows.
 * - An LL whose set count is not a power of two gets the power of two below it, its
 *   associativity scaled up by the same factor (rounded), its size recomputed
 *   (`maybe_tweak_LLc`).
 */
import type { CacheLevelConfig, HierarchyConfig, HostHierarchy } from '../../shared/domain'
import { describeLevel } from '../../shared/run-labels'
import { formatSize, parseSize } from '../../shared/sizes'

export type HostCacheKind = 'data' | 'instruction' | 'unified'

export interface HostCache {
  level: number
  kind: HostCacheKind
  /** Bytes. */
  size: number
  assoc: number
  lineSize: number
}

/** One sysfs `index*` directory: file name -> its text (undefined when unreadable or absent). */
export type SysfsIndex = Record<string, string | undefined>

const KINDS: Record<string, HostCacheKind> = { data: 'data', instruction: 'instruction', unified: 'unified' }

/** The caches one CPU's sysfs `cache/index*` directories describe (directory name -> files), or why not. */
export function parseSysfsCaches(indexes: Record<string, SysfsIndex>): HostCache[] | string {
  const names = Object.keys(indexes)
    .filter((n) => /^index\d+$/.test(n))
    .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)))
  if (names.length === 0) return 'it lists no cache (no index* directory)'
  const caches: HostCache[] = []
  for (const name of names) {
    const files = indexes[name]!
    const text = (file: string): string | string[] => {
      const t = files[file]?.trim()
      return t === undefined || t === '' ? [`${name}/${file} is missing or unreadable`] : t
    }
    const level = text('level')
    const type = text('type')
    const size = text('size')
    const ways = text('ways_of_associativity')
    const line = text('coherency_line_size')
    for (const t of [level, type, size, ways, line]) if (Array.isArray(t)) return t[0]!
    const kind = KINDS[(type as string).toLowerCase()]
    if (!kind) continue // e.g. "Trace" caches: neither Cachegrind nor Stride simulates them
    const lv = Number(level)
    const bytes = parseSize(size as string)
    const assoc = Number(ways)
    const lineSize = Number(line)
    if (!Number.isInteger(lv) || lv < 1) return `${name}/level is "${level as string}", not a level`
    if (bytes === null || bytes <= 0) return `${name}/size is "${size as string}", not a size`
    if (!Number.isInteger(lineSize) || lineSize <= 0) return `${name}/coherency_line_size is "${line as string}", not a line size`
    if (!Number.isInteger(assoc) || assoc < 0) return `${name}/ways_of_associativity is "${ways as string}", not a number of ways`
    // Linux shows 0 ways for a fully associative cache: one set.
    caches.push({ level: lv, kind, size: bytes, assoc: assoc === 0 ? Math.max(1, Math.floor(bytes / lineSize)) : assoc, lineSize })
  }
  return caches
}

/** The CPUID registers Cachegrind reads on an AMD processor (EAX of leaf 1 for the Duron check). */
export interface AmdCpuid {
  /** EAX of leaf 0x80000000: the highest extended leaf. */
  extLevel: number
  /** ECX and EDX of leaf 0x80000005: L1 data and L1 instruction. */
  l1d: number
  l1i: number
  /** ECX and EDX of leaf 0x80000006: L2 and L3. */
  l2: number
  l3: number
  /** EAX of leaf 1. */
  signature: number
}

/** AMD's 4-bit L2/L3 associativity code, as Cachegrind decodes it (unknown codes: 1-way). */
function amdAssoc(code: number): number {
  return { 1: 1, 2: 2, 4: 4, 6: 8, 8: 16, 0xa: 32, 0xb: 48, 0xc: 64, 0xd: 96, 0xe: 128 }[code & 0xf] ?? 1
}

/** The caches as Cachegrind decodes AMD's CPUID leaves 0x80000005/6, or why not. */
export function decodeAmdCpuid(r: AmdCpuid): HostCache[] | string {
  if ((r.extLevel & 0x80000000) === 0 || r.extLevel >>> 0 < 0x80000006) return `CPUID has no leaf 0x80000006 (highest extended leaf 0x${(r.extLevel >>> 0).toString(16)})`
  // Duron stepping A0 reports its 64 KB L2 as 1 KB.
  const l2 = r.signature === 0x630 ? ((64 << 16) | (r.l2 & 0xffff)) >>> 0 : r.l2
  const l1 = (reg: number, kind: HostCacheKind): HostCache => ({ level: 1, kind, size: ((reg >>> 24) & 0xff) * 1024, assoc: (reg >>> 16) & 0xff, lineSize: reg & 0xff })
  const caches = [
    l1(r.l1d, 'data'),
    l1(r.l1i, 'instruction'),
    { level: 2, kind: 'unified' as const, size: ((l2 >>> 16) & 0xffff) * 1024, assoc: amdAssoc(l2 >>> 12), lineSize: l2 & 0xff }
  ]
  const l3Units = (r.l3 >>> 18) & 0x3fff
  if (l3Units > 0) caches.push({ level: 3, kind: 'unified', size: l3Units * 512 * 1024, assoc: amdAssoc(r.l3 >>> 12), lineSize: r.l3 & 0xff })
  return caches
}

const isPowerOfTwo = (n: number): boolean => n > 0 && Number.isInteger(n) && (n & (n - 1)) === 0

/** Cachegrind's `floor_power_of_2`: the largest power of two <= n (n >= 1). */
function floorPowerOfTwo(n: number): number {
  return 2 ** Math.floor(Math.log2(n))
}

export interface Tweaked {
  size: number
  assoc: number
  lineSize: number
}

/**
 * Cachegrind's `maybe_tweak_LLc`: a power-of-two set count, the associativity scaled up by the
 * factor the sets came down by (rounded), the size recomputed to divide exactly among the sets.
 */
export function tweakSets(c: Tweaked): Tweaked {
  const sets = Math.floor(c.size / (c.assoc * c.lineSize))
  if (sets === 0) return c
  if (isPowerOfTwo(sets)) return { ...c, size: c.lineSize * c.assoc * sets }
  const newSets = floorPowerOfTwo(sets)
  const assoc = Math.floor(0.5 + (sets / newSets) * c.assoc)
  return { size: c.lineSize * assoc * newSets, assoc, lineSize: c.lineSize }
}

/** Cachegrind's defaults when it cannot read the caches, per architecture (cg_arch.c). */
export function cachegrindDefaults(arch: string): { d1: Tweaked; ll: Tweaked } {
  switch (arch) {
    case 'arm':
    case 'arm64':
      return { d1: { size: 16384, assoc: 4, lineSize: 64 }, ll: { size: 262144, assoc: 8, lineSize: 64 } }
    case 'ppc':
    case 'ppc64':
      return { d1: { size: 65536, assoc: 2, lineSize: 64 }, ll: { size: 262144, assoc: 8, lineSize: 64 } }
    case 's390x':
      return { d1: { size: 131072, assoc: 8, lineSize: 256 }, ll: { size: 50331648, assoc: 24, lineSize: 256 } }
    case 'mips':
    case 'mipsel':
    case 'mips64':
    case 'mips64el':
      return { d1: { size: 32768, assoc: 4, lineSize: 32 }, ll: { size: 524288, assoc: 8, lineSize: 32 } }
    default: // x86, amd64 and the rest
      return { d1: { size: 65536, assoc: 2, lineSize: 64 }, ll: { size: 262144, assoc: 8, lineSize: 64 } }
  }
}

/** Cachegrind's D1 and LL among the caches (I1 must exist too, as Cachegrind asks), or why not. */
export function cachegrindLevels(caches: HostCache[]): { d1: HostCache; ll: HostCache } | string {
  const top = Math.max(...caches.map((c) => c.level))
  const d1 = caches.find((c) => c.level === 1 && c.kind === 'data')
  const i1 = caches.find((c) => c.level === 1 && c.kind === 'instruction')
  const ll = caches.find((c) => c.level === top && c.kind === 'unified')
  if (!d1) return 'no level-1 data cache is listed'
  if (!i1) return 'no level-1 instruction cache is listed (Cachegrind then uses its defaults)'
  if (!ll) return `no unified cache at the last level (L${top}) is listed`
  return { d1, ll }
}

// Stride's simulator keeps state for every line (schemas.ts: at most 512 MiB a level).
const MAX_LEVEL_BYTES = 2 ** 29

const words = (name: string, c: Tweaked): string => describeLevel({ name, ...c, policy: 'lru' })

function level(name: string, c: Tweaked): CacheLevelConfig {
  return { name, size: c.size, assoc: c.assoc, lineSize: c.lineSize, policy: 'lru' }
}

/** Why a cache Cachegrind's simulator (or Stride's) cannot take is refused, or null (cg_arch.c's check_cache). */
function unusable(name: string, c: Tweaked): string | null {
  if (!isPowerOfTwo(c.lineSize) || c.lineSize < 16) return `${words(name, c)}: Cachegrind needs a power-of-two line size of at least 16 bytes`
  if (c.size <= c.lineSize || c.assoc > c.size / c.lineSize) return `${words(name, c)}: not a cache Cachegrind can simulate`
  const sets = c.size / (c.assoc * c.lineSize)
  if (!Number.isInteger(sets) || !isPowerOfTwo(sets)) return `${words(name, c)}: its set count is not a power of two`
  return null
}

export type HostReading =
  | { source: 'cpuid' | 'sysfs'; caches: HostCache[]; where: string; asCachegrind: boolean; caveat?: string }
  | { source: 'unreadable'; why: string }

/**
 * The hierarchy Stride simulates by default on this host: Cachegrind's D1 and LL from what was
 * read, adjusted as Cachegrind adjusts them, or Cachegrind's defaults for `arch` (with why).
 */
export function hostHierarchyOf(reading: HostReading, arch: string): HostHierarchy {
  const fallback = (why: string): HostHierarchy => {
    const { d1, ll } = cachegrindDefaults(arch)
    const summary = `${words('D1', d1)}, ${words('LL', ll)}`
    return {
      config: { levels: [level('D1', d1), level('LL', ll)], cachegrindCompatible: false } as HierarchyConfig,
      source: 'defaults',
      summary,
      note: `${why}; using Cachegrind's defaults, ${summary}.`,
      asCachegrind: true
    }
  }
  if (reading.source === 'unreadable') return fallback(`Host caches unreadable: ${reading.why}`)
  const found = cachegrindLevels(reading.caches)
  if (typeof found === 'string') return fallback(`Host caches unusable (${reading.where}): ${found}`)
  const notes: string[] = []
  let asCachegrind = reading.asCachegrind
  const adjust = (name: string, c: HostCache): Tweaked => {
    let t = tweakSets(c)
    if (t.size !== c.size || t.assoc !== c.assoc) {
      notes.push(`${words(name, c)} simulated as ${words(name, t)} (${name === 'LL' ? 'power-of-two sets, as Cachegrind' : 'power-of-two sets; Cachegrind refuses such a D1'})`)
      if (name !== 'LL') asCachegrind = false
    }
    if (t.size > MAX_LEVEL_BYTES) {
      const sets = floorPowerOfTwo(MAX_LEVEL_BYTES / (t.assoc * t.lineSize))
      const capped = { ...t, size: sets * t.assoc * t.lineSize }
      notes.push(`${words(name, t)} simulated as ${words(name, capped)} (Stride simulates at most 512M a level)`)
      asCachegrind = false
      t = capped
    }
    return t
  }
  // Cachegrind adjusts only its LL; a D1 with sets not a power of two would stop it. Stride
  // adjusts both the same way and says so.
  const d1 = adjust('D1', found.d1)
  const ll = adjust('LL', found.ll)
  const bad = unusable('D1', d1) ?? unusable('LL', ll)
  if (bad) return fallback(`Host caches unusable (${reading.where}): ${bad}`)
  const summary = `${words('D1', d1)}, ${words('LL', ll)}`
  const lastLevel = Math.max(...reading.caches.map((c) => c.level))
  const from = `read from ${reading.where}${lastLevel > 2 ? `, L${lastLevel} as LL` : ''}`
  return {
    config: { levels: [level('D1', d1), level('LL', ll)], cachegrindCompatible: false } as HierarchyConfig,
    source: reading.source,
    summary,
    note: [`Host: ${summary} (${from}${asCachegrind ? ', as Cachegrind' : ''})`, ...notes, ...(reading.caveat ? [reading.caveat] : [])].join('; ') + '.',
    asCachegrind
  }
}

/** The hierarchy as `stride simulate` flags: `--cache D1:32K:8:64 --cache LL:256M:1:64`. */
export function cacheFlags(config: HierarchyConfig): string {
  return config.levels.map((l) => `--cache ${l.name}:${formatSize(l.size)}:${l.assoc}:${l.lineSize}`).join(' ')
}

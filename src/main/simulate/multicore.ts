/**
 * Several cores, each with its own copy of the private cache levels, sharing the levels marked
 * `shared` (issue 50). Its own module: the one-hierarchy path (native core) is untouched and
 * pays nothing for it.
 *
 * Rules, first:
 *  - Each thread runs on one core (`placement`); an access goes down its core's levels in order,
 *    private levels being the core's own instance, shared levels one instance for all.
 *  - MESI-style invalidation: a write by core c removes the line from every private level of
 *    every other core (M on c, I elsewhere); a read needs no action (the owner's copy turns
 *    S). Invalidations are counted per writing reference and per line.
 *  - A coherence miss: an access misses in its core's first private level and the core lost
 *    the line to an invalidation since it last had it (not to its own evictions). It is *true
 *    sharing* when its bytes overlap bytes other cores wrote since the invalidation, else
 *    *false sharing*. A miss counts once per line an access touches (an access straddling two
 *    lines may miss on both).
 *  - A modify is a read then a write of the same bytes (counted as both, as the one-hierarchy
 *    run counts it). Write-back/write-through and write-allocate as configured; prefetchers,
 *    inclusion and TLBs are not simulated with cores (the caller refuses them).
 *  - Addresses go through the layout map first (what-if padding), as in the one hierarchy.
 */
import type { CacheLevelConfig } from '../../shared/domain'
import { CacheLevel, MISS } from './cache-level'

export interface MultiCoreConfig {
  levels: Array<CacheLevelConfig & { shared?: boolean }>
  cores: number
  /** Thread -> core. */
  placement: Map<number, number>
}

export interface ThreadedAccesses {
  count: number
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  threads: Uint32Array
}

export interface LevelCounts {
  reads: number
  writes: number
  readMisses: number
  writeMisses: number
}

export interface LineCoherence {
  trueSharing: number
  falseSharing: number
  invalidations: number
  /** A trace address in the line (before any layout map), for naming it. */
  address: number
}

export interface MultiCoreResult {
  cores: number
  levels: Array<LevelCounts & { name: string; shared: boolean; perCore: LevelCounts[] }>
  coherence: { trueSharing: number; falseSharing: number; invalidations: number }
  /** Per point: accesses (reads, writes), misses per level, coherence misses, invalidations caused. */
  points: {
    reads: Float64Array
    writes: Float64Array
    misses: Float64Array[]
    trueSharing: Float64Array
    falseSharing: Float64Array
    invalidations: Float64Array
  }
  /** Per thread and point: accesses and first-level misses (the per-thread breakdown). */
  threads: Map<number, { accesses: Float64Array; misses: Float64Array }>
  /** Lines with coherence misses or invalidations, keyed by line number (address / line size, after the layout map). */
  lines: Map<number, LineCoherence>
  /** Invalidations from core to core: key `from * cores + to`. */
  invalidationEdges: Map<number, number>
}

const WRITE = 1
const MODIFY = 2

const emptyCounts = (): LevelCounts => ({ reads: 0, writes: 0, readMisses: 0, writeMisses: 0 })

export class MultiCoreHierarchy {
  /** instances[core][level]: a shared level's instance is the same object for every core. */
  private readonly instances: CacheLevel[][]
  private readonly privateLevels: number[]
  private readonly firstPrivate: number
  private readonly lineSize: number
  private readonly scale: number
  private readonly words: number
  /** Per core: lines it lost to invalidation, with the bytes other cores wrote since (bit vector). */
  private readonly lost: Array<Map<number, Int32Array>>
  private readonly result: MultiCoreResult
  private readonly allocateOnWrite: boolean[]
  /** Per (core, level), 4 counts: reads, writes, read misses, write misses. */
  private readonly counts: Float64Array

  constructor(
    private readonly config: MultiCoreConfig,
    private readonly pointKinds: Uint8Array,
    private readonly mapAddress: ((address: number) => number) | null = null
  ) {
    const { levels, cores } = config
    if (!Number.isInteger(cores) || cores < 1) throw new Error(`cores must be a positive integer, not ${cores}`)
    const shared = levels.map((l) => (l.shared ? new CacheLevel(l, false) : null))
    this.instances = Array.from({ length: cores }, () => levels.map((l, i) => shared[i] ?? new CacheLevel(l, false)))
    this.privateLevels = levels.flatMap((l, i) => (l.shared ? [] : [i]))
    this.firstPrivate = this.privateLevels[0] ?? -1
    // Coherence is tracked at the first private level's line size (the lines cores exchange).
    this.lineSize = this.firstPrivate >= 0 ? levels[this.firstPrivate]!.lineSize : levels[0]!.lineSize
    this.scale = 1 / this.lineSize
    this.words = Math.ceil(this.lineSize / 32)
    this.lost = Array.from({ length: cores }, () => new Map())
    this.allocateOnWrite = levels.map((l) => l.writeAllocate !== false)
    this.counts = new Float64Array(cores * levels.length * 4)
    const n = pointKinds.length
    this.result = {
      cores,
      levels: levels.map((l) => ({ name: l.name, shared: !!l.shared, ...emptyCounts(), perCore: Array.from({ length: cores }, emptyCounts) })),
      coherence: { trueSharing: 0, falseSharing: 0, invalidations: 0 },
      points: {
        reads: new Float64Array(n),
        writes: new Float64Array(n),
        misses: levels.map(() => new Float64Array(n)),
        trueSharing: new Float64Array(n),
        falseSharing: new Float64Array(n),
        invalidations: new Float64Array(n)
      },
      threads: new Map(),
      lines: new Map(),
      invalidationEdges: new Map()
    }
  }

  run(b: ThreadedAccesses): void {
    const kinds = this.pointKinds
    const placement = this.config.placement
    let lastThread = -1
    let core = 0
    let perThread: { accesses: Float64Array; misses: Float64Array } | undefined
    // The batch's arrays as locals (batches come in more than one shape).
    const { points, addresses, sizes, threads } = b
    for (let i = 0; i < b.count; i++) {
      const t = threads[i]!
      if (t !== lastThread) {
        lastThread = t
        core = placement.get(t) ?? t % this.config.cores
        perThread = this.result.threads.get(t)
        if (!perThread) this.result.threads.set(t, (perThread = { accesses: new Float64Array(kinds.length), misses: new Float64Array(kinds.length) }))
      }
      const p = points[i]!
      const kind = kinds[p] ?? 0
      const original = addresses[i]!
      const a = this.mapAddress ? this.mapAddress(original) : original
      const size = Math.max(1, sizes[i]!)
      perThread!.accesses[p]!++
      let missed = false
      if (kind !== WRITE) missed = this.access(core, p, a, size, false, original) || missed
      if (kind === WRITE || kind === MODIFY) missed = this.access(core, p, a, size, true, original) || missed
      if (missed) perThread!.misses[p]!++
    }
  }

  /** One read or write of [a, a+size) by `core`; true if it missed the first level. */
  private access(core: number, point: number, a: number, size: number, write: boolean, original: number): boolean {
    const r = this.result
    if (write) r.points.writes[point]!++
    else r.points.reads[point]!++
    const first = Math.floor(a * this.scale)
    const last = Math.floor((a + size - 1) * this.scale)
    let missedFirst = false
    for (let line = first; line <= last; line++) {
      const lo = Math.max(a, line * this.lineSize) - line * this.lineSize
      const hi = Math.min(a + size, (line + 1) * this.lineSize) - line * this.lineSize - 1
      if (this.lookup(core, point, line, lo, hi, write, original)) missedFirst = true
      if (write) this.invalidateOthers(core, point, line, lo, hi, original)
    }
    return missedFirst
  }

  private lookup(core: number, point: number, line: number, lo: number, hi: number, write: boolean, original: number): boolean {
    const r = this.result
    const levels = this.instances[core]!
    let missedFirst = false
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i]!
      // Counts per (core, level): reads, writes, read misses, write misses; summed per level at finish().
      const at = (core * levels.length + i) * 4
      const counts = this.counts
      // Levels may differ in line size: each looks up its own block of the address.
      const block = Math.floor(line * this.lineSize * level.lineScale)
      const off = line * this.lineSize - block * level.lineSize
      counts[at + (write ? 1 : 0)]!++
      const result = level.lookup(block, off + lo, off + hi, write, point, !write || this.allocateOnWrite[i]!)
      if (result !== MISS) break
      counts[at + (write ? 3 : 2)]!++
      r.points.misses[i]![point]!++
      if (i === 0) missedFirst = true
      if (i === this.firstPrivate) this.coherenceMiss(core, point, line, lo, hi, original)
    }
    return missedFirst
  }

  /** A first-private-level miss: coherence if the core lost the line to another core's write. */
  private coherenceMiss(core: number, point: number, line: number, lo: number, hi: number, original: number): void {
    const lost = this.lost[core]!
    const written = lost.get(line)
    if (!written) return
    lost.delete(line)
    let overlap = false
    for (let k = lo; k <= hi && !overlap; k++) if (written[k >>> 5]! & (1 << (k & 31))) overlap = true
    const r = this.result
    const entry = this.lineEntry(line, original)
    if (overlap) {
      r.coherence.trueSharing++
      r.points.trueSharing[point]!++
      entry.trueSharing++
    } else {
      r.coherence.falseSharing++
      r.points.falseSharing[point]!++
      entry.falseSharing++
    }
  }

  private invalidateOthers(core: number, point: number, line: number, lo: number, hi: number, original: number): void {
    const cores = this.config.cores
    if (cores === 1 || this.firstPrivate < 0) return
    for (let c = 0; c < cores; c++) {
      if (c === core) continue
      let had = false
      for (const i of this.privateLevels) {
        const level = this.instances[c]![i]!
        const block = Math.floor(line * this.lineSize * level.lineScale)
        if (level.invalidate(block)) had = true
      }
      const lost = this.lost[c]!
      let written = lost.get(line)
      if (had) {
        const r = this.result
        r.coherence.invalidations++
        r.points.invalidations[point]!++
        this.lineEntry(line, original).invalidations++
        const key = core * cores + c
        r.invalidationEdges.set(key, (r.invalidationEdges.get(key) ?? 0) + 1)
        if (!written) lost.set(line, (written = new Int32Array(this.words)))
      }
      if (written) for (let k = lo; k <= hi; k++) written[k >>> 5]! |= 1 << (k & 31)
    }
  }

  private lineEntry(line: number, original: number): LineCoherence {
    let e = this.result.lines.get(line)
    if (!e) this.result.lines.set(line, (e = { trueSharing: 0, falseSharing: 0, invalidations: 0, address: original }))
    return e
  }

  finish(): MultiCoreResult {
    const n = this.config.levels.length
    for (let i = 0; i < n; i++) {
      const level = this.result.levels[i]!
      Object.assign(level, emptyCounts())
      for (let c = 0; c < this.config.cores; c++) {
        const at = (c * n + i) * 4
        const k = this.counts
        level.perCore[c] = { reads: k[at]!, writes: k[at + 1]!, readMisses: k[at + 2]!, writeMisses: k[at + 3]! }
        level.reads += k[at]!
        level.writes += k[at + 1]!
        level.readMisses += k[at + 2]!
        level.writeMisses += k[at + 3]!
      }
    }
    return this.result
  }
}

/** Threads placed round-robin over `cores` in ascending thread order, then the explicit `place` pairs over that. */
export function placeThreads(threads: readonly number[], cores: number, place: ReadonlyMap<number, number> = new Map()): Map<number, number> {
  const out = new Map<number, number>()
  threads.forEach((t, i) => out.set(t, i % cores))
  for (const [t, c] of place) out.set(t, c)
  return out
}

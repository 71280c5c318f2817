/**
 * Buck 2.2's n-way search over the address space, run on the simulated miss stream as a
 * stand-in for region-restricted hardware counters (base/bounds registers, one counter per
 * region, plus one counting every miss). Rules, as the paper states them:
 * - Start: the address space split into n regions. Each interval (a timer: `intervalAccesses`
 *   accesses of virtual time) ends with an interrupt that reads the counters and puts every
 *   measured region on a priority queue ranked by its share of the interval's misses.
 * - Next: take regions off the queue, best first; a splittable one is cut in two (2
 *   counters), a region holding a single object is measured again (1 counter) and its
 *   estimate is the average of its measurements. Regions left on the queue keep their old
 *   estimate, so the search backs up when an earlier region beats the current ones.
 * - Splits follow object extents (regions are runs of whole segments, see ObjectTable): an
 *   array never straddles two regions.
 * - A region that measured zero is dropped, unless it had misses before (a phase): then it is
 *   kept for up to `zeroKeep` intervals in a row and each such keep doubles the interval.
 * - Dropped regions are not forgotten: one more counter (time-shared, as the paper allows)
 *   counts the misses in all of them, so the misses outside the regions searched are measured
 *   every interval. When that remainder reaches the threshold the dropped regions come back on
 *   the queue (a program whose arrays are untouched during start-up is still found).
 * - Converge when the top n-1 regions are single objects (no counters left to split the
 *   n-th), or when the regions not yet resolved, remainder included, hold less than
 *   `threshold` of the misses; but not before `minAccesses` (a representative portion of the
 *   run).
 * Beyond the paper (Stride has the whole miss stream, so stopping saves nothing worth a wrong
 * ranking): converged, the search keeps measuring. The n-1 objects found keep their counters,
 * everything else is counted by the remainder, and quiet intervals lengthen. When the
 * remainder reaches the threshold again (a new phase: other arrays start missing) the search
 * reopens, the dropped regions come back, and the found objects stay on the queue.
 * Estimates are misses, not interval shares: each region accumulates the misses counted while
 * it was armed, and a split hands its parent's past misses to the two halves in proportion
 * to their first measurement; an object's share is its misses over all misses of the run. So
 * arrays swept in long phases one after another rank by their whole-run misses.
 */

import type { ObjectTable } from './object-table'

export interface NwaySearchOptions {
  ways: number
  /** Accesses per sampling interval (virtual timer). */
  intervalAccesses: number
  /** Stop when unresolved regions hold less than this share of the misses. */
  threshold?: number
  /** Intervals a zero-miss region that had misses is kept. */
  zeroKeep?: number
  /** Longest interval, as a multiple of the first. */
  maxLengthening?: number
  /**
   * Do not conclude before this many accesses have run (Buck: "after a representative portion
   * of the execution"): a start-up phase must not end the search on the loader's data.
   */
  minAccesses?: number
}

interface Region {
  /** Segments [lo, hi). */
  lo: number
  hi: number
  estimate: number
  measurements: number
  zeroStreak: number
  /** Misses counted while armed, plus those inherited from its parent (see above). */
  misses: number
  /** Misses this region shares with others, handed out at their first measurement. */
  pools: Pool[]
}

/** Past misses of a group (the halves of a split, regions back from the remainder), not yet shared out. */
interface Pool {
  misses: number
  members: Region[]
}

export interface SearchFinding {
  object: number
  fraction: number
  measurements: number
}

export interface SearchResult {
  objects: SearchFinding[]
  interrupts: number
  /** Converged at least once and not reopened since without converging again. */
  converged: boolean
  reason: 'single-objects' | 'threshold' | 'stream-ended'
  /** Interval length at the end (lengthened by zero-miss keeps and quiet monitoring). */
  intervalAccesses: number
  /** Accesses run when it first converged (null: never). */
  convergedAt: number | null
  /** Times a grown remainder reopened the search after it had converged. */
  reopened: number
  /** Accesses measured (the clock at the last interrupt or call). */
  measuredAccesses: number
  /** Misses observed in all. */
  misses: number
}

export class NwaySearch {
  private readonly ways: number
  private readonly threshold: number
  private readonly zeroKeep: number
  private readonly maxInterval: number
  private interval: number
  private active: Region[] = []
  private queue: Region[] = []
  /** Dropped regions; their misses go to the remainder counter. */
  private cold: Region[] = []
  private remainder = 0
  /** Counter of each segment this interval (-1: not counted). */
  private readonly counterOf: Int32Array
  private counts: Float64Array
  private total = 0
  private nextInterrupt: number
  private readonly minAccesses: number
  /** Consecutive interrupts at which a stop condition held (it must hold twice). */
  private stopVotes = 0
  /** Converged: the found objects are watched, the rest counted by the remainder. */
  private watching = false
  private readonly baseInterval: number
  private remainderMisses = 0
  private allMisses = 0
  private clockNow = 0
  private convergedAt: number | null = null
  private lastReason: SearchResult['reason'] = 'stream-ended'
  private reopened = 0
  interrupts = 0
  /** Never set: the search measures the whole stream (kept for callers that loop while !done). */
  readonly done: SearchResult['reason'] | null = null

  constructor(
    private readonly table: ObjectTable,
    options: NwaySearchOptions
  ) {
    if (!Number.isInteger(options.ways) || options.ways < 2) throw new Error(`n-way search needs at least 2 ways, not ${options.ways}`)
    this.ways = options.ways
    this.threshold = options.threshold ?? 0.01
    this.zeroKeep = options.zeroKeep ?? 3
    this.interval = Math.max(1, Math.round(options.intervalAccesses))
    this.baseInterval = this.interval
    this.maxInterval = this.interval * (options.maxLengthening ?? 64)
    this.counterOf = new Int32Array(table.segmentCount)
    this.counts = new Float64Array(this.ways + 1)
    this.nextInterrupt = this.interval
    this.minAccesses = options.minAccesses ?? 0
    const all = region(0, table.segmentCount)
    this.arm(this.splitInto(all, this.ways))
  }

  private isSingle(r: Region): boolean {
    return r.hi - r.lo === 1
  }

  /**
   * Cuts a region in two at the segment boundary nearest its address midpoint (Buck: halves,
   * adjusted so no object spans the boundary). Null when it holds one segment.
   */
  private bisect(r: Region): [Region, Region] | null {
    if (r.hi - r.lo < 2) return null
    const t = this.table
    const mid = (t.segmentStart(r.lo) + t.segmentEnd(r.hi - 1)) / 2
    let cut = r.lo + 1
    let best = Infinity
    // Segments are few (2 x objects + 1); a linear scan keeps this obviously right.
    for (let s = r.lo + 1; s < r.hi; s++) {
      const d = Math.abs(t.segmentStart(s) - mid)
      if (d < best) {
        best = d
        cut = s
      }
    }
    const halves: [Region, Region] = [region(r.lo, cut), region(cut, r.hi)]
    pooled(r.misses, halves)
    // Pools the parent was still waiting on pass to its halves.
    for (const pool of r.pools) {
      pool.members.splice(pool.members.indexOf(r), 1, ...halves)
      for (const h of halves) h.pools.push(pool)
    }
    return halves
  }

  /** Up to `parts` regions by repeated halving of the widest (in segments). */
  private splitInto(r: Region, parts: number): Region[] {
    const out = [r]
    while (out.length < parts) {
      out.sort((a, b) => b.hi - b.lo - (a.hi - a.lo))
      const halves = this.bisect(out[0]!)
      if (!halves) break
      out.splice(0, 1, ...halves)
    }
    return out.sort((a, b) => a.lo - b.lo)
  }

  private arm(regions: Region[]): void {
    this.active = regions
    this.counterOf.fill(-1)
    // One counter for the misses in dropped regions (the remainder), one for the regions
    // waiting on the queue (their misses are shared out by estimate, not lost).
    for (const r of this.cold) this.counterOf.fill(regions.length, r.lo, r.hi)
    for (const r of this.queue) this.counterOf.fill(regions.length + 1, r.lo, r.hi)
    regions.forEach((r, i) => this.counterOf.fill(i, r.lo, r.hi))
    this.counts = new Float64Array(regions.length + 2)
    this.total = 0
  }

  /** One miss in segment `segment` (ObjectTable.segment of its address). */
  observe(segment: number): void {
    this.total++
    this.allMisses++
    const c = this.counterOf[segment]!
    if (c >= 0) this.counts[c]!++
  }

  /** Virtual time: `accesses` accesses have run so far. */
  clock(accesses: number): void {
    this.clockNow = Math.max(this.clockNow, accesses)
    while (accesses >= this.nextInterrupt) {
      this.interrupt()
      this.nextInterrupt += this.interval
    }
  }

  private interrupt(): void {
    this.interrupts++
    if (this.total === 0) {
      // Nothing missed at all this interval: measure the same regions again, for longer.
      this.lengthen()
      return
    }
    // Share out pooled past misses (a parent's, the remainder's) by the members' first counts.
    const pools = new Set(this.active.flatMap((r) => r.pools))
    for (const pool of pools) {
      const measured = pool.members.map((m) => ({ m, c: this.active.includes(m) ? this.counts[this.active.indexOf(m)]! : 0 }))
      const sum = measured.reduce((a, x) => a + x.c, 0)
      if (sum === 0) continue
      for (const { m, c } of measured) {
        m.misses += (pool.misses * c) / sum
        m.pools = m.pools.filter((p) => p !== pool)
      }
      pool.misses = 0
    }
    this.active.forEach((r, i) => (r.misses += this.counts[i]!))
    const waiting = this.counts[this.active.length + 1]!
    if (waiting > 0 && this.queue.length > 0) {
      const weight = this.queue.reduce((s, r) => s + r.estimate, 0)
      for (const r of this.queue) r.misses += weight > 0 ? (waiting * r.estimate) / weight : waiting / this.queue.length
    }
    const remainderCount = this.counts[this.active.length]!
    this.remainderMisses += remainderCount
    this.remainder = remainderCount / this.total
    if (this.watching) {
      this.watch()
      return
    }
    let lengthen = false
    for (let i = 0; i < this.active.length; i++) {
      const r = this.active[i]!
      const share = this.counts[i]! / this.total
      if (share === 0) {
        if (r.measurements > 0 && r.zeroStreak < this.zeroKeep) {
          r.zeroStreak++
          lengthen = true
          this.queue.push(r)
        } else this.cold.push(r)
        continue
      }
      r.zeroStreak = 0
      // A single object is measured again and again: average its shares (Buck 2.2).
      r.estimate = this.isSingle(r) ? (r.estimate * r.measurements + share) / (r.measurements + 1) : share
      r.measurements++
      this.queue.push(r)
    }
    if (lengthen) this.lengthen()
    // Misses outside every searched region: bring the dropped regions back to compete.
    if (this.remainder > 0 && this.remainder >= this.threshold && this.cold.length > 0) this.warmCold()
    this.queue.sort((a, b) => b.estimate - a.estimate)
    const top = this.queue.filter((r) => r.estimate > 0).slice(0, this.ways - 1)
    const unresolved = this.queue.filter((r) => !this.isSingle(r)).reduce((s, r) => s + r.estimate, this.cold.length > 0 ? this.remainder : 0)
    const stop = top.length === this.ways - 1 && top.every((r) => this.isSingle(r)) ? 'single-objects' : unresolved < this.threshold ? 'threshold' : null
    if (stop && this.nextInterrupt >= this.minAccesses) {
      // A phase can make a stop look right: it must hold again over a twice longer interval.
      if (++this.stopVotes >= 2) {
        this.converge(stop, top)
        return
      }
      this.lengthen()
    } else this.stopVotes = 0
    this.armFromQueue()
  }

  /** The counters go to the queue's best regions: a single object takes one, a split two. */
  private armFromQueue(): void {
    const next: Region[] = []
    let counters = this.ways
    const rest: Region[] = []
    for (const r of this.queue) {
      if (this.isSingle(r) && counters >= 1) {
        next.push(r)
        counters--
      } else if (!this.isSingle(r) && counters >= 2) {
        next.push(...this.bisect(r)!)
        counters -= 2
      } else rest.push(r)
    }
    this.queue = rest
    this.arm(next)
  }

  /** Converged: watch the objects found; every other region is counted by the remainder. */
  private converge(reason: SearchResult['reason'], top: Region[]): void {
    this.convergedAt ??= this.nextInterrupt
    this.lastReason = reason
    this.watching = true
    const found = top.filter((r) => this.isSingle(r))
    for (const r of this.queue) if (!found.includes(r)) this.cold.push(r)
    this.queue = []
    this.arm(found)
  }

  /** One interrupt while converged: a grown remainder reopens the search; quiet ones lengthen the interval. */
  private watch(): void {
    for (let i = 0; i < this.active.length; i++) {
      const r = this.active[i]!
      const share = this.counts[i]! / this.total
      r.estimate = (r.estimate * r.measurements + share) / (r.measurements + 1)
      r.measurements++
    }
    if (this.remainder >= Math.max(this.threshold, Number.EPSILON) && this.cold.length > 0) {
      this.watching = false
      this.reopened++
      this.stopVotes = 0
      this.interval = this.baseInterval
      this.queue = [...this.active]
      this.warmCold()
      this.queue.sort((a, b) => b.estimate - a.estimate)
      this.armFromQueue()
      return
    }
    this.lengthen()
    this.arm(this.active)
  }

  /** The dropped regions back on the queue, sharing the remainder's misses and estimate. */
  private warmCold(): void {
    const n = this.cold.length
    const back = this.cold.map((r) => ({ ...r, estimate: this.remainder / n, measurements: 0, zeroStreak: 0, pools: [] }))
    this.queue.push(...pooled(this.remainderMisses, back))
    this.remainderMisses = 0
    this.cold = []
  }

  private lengthen(): void {
    this.interval = Math.min(this.maxInterval, this.interval * 2)
  }

  /**
   * The objects found: single-object regions, most misses first (at most n-1), each with its
   * misses over all the misses observed.
   */
  result(): SearchResult {
    const regions = new Set<Region>([...this.queue, ...this.active, ...this.cold])
    // The interval under way counts too: the stream may end long before the next interrupt.
    const missesOf = (r: Region) => r.misses + (this.active.includes(r) ? this.counts[this.active.indexOf(r)]! : 0)
    const singles = [...regions]
      .filter((r) => this.isSingle(r) && r.lo % 2 === 1 && r.measurements > 0)
      .sort((a, b) => missesOf(b) - missesOf(a) || b.estimate - a.estimate)
      .slice(0, this.ways - 1)
    return {
      objects: singles.map((r) => ({ object: (r.lo - 1) / 2, fraction: this.allMisses > 0 ? missesOf(r) / this.allMisses : 0, measurements: r.measurements })),
      interrupts: this.interrupts,
      converged: this.watching,
      reason: this.watching ? this.lastReason : 'stream-ended',
      intervalAccesses: this.interval,
      convergedAt: this.convergedAt,
      reopened: this.reopened,
      measuredAccesses: this.clockNow,
      misses: this.allMisses
    }
  }
}

function region(lo: number, hi: number): Region {
  return { lo, hi, estimate: 0, measurements: 0, zeroStreak: 0, misses: 0, pools: [] }
}

function pooled(misses: number, members: Region[]): Region[] {
  const pool: Pool = { misses, members: [...members] }
  for (const m of members) m.pools.push(pool)
  return members
}

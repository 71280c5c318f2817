/**
 * Loop folding, the first step of chunk codecs `prsd-sequitur-v2` and `-v3` (after SIGMA's `repeat`,
 * DeRose et al. section 2.2-2.3): a run of the same body of k symbols repeated r times in the
 * order of access points becomes the body once and a repeat marker (k, r), so SEQUITUR sees
 * a few symbols per loop instead of one per access. Each of FOLD_LEVELS levels folds the
 * output of the one below (loops of loops); the last feeds SEQUITUR. Addresses are not
 * involved: the PRSD detector sees them as before.
 *
 * A level's rules (resources/native/core/src/codec/fold.c follows them to the symbol):
 *   - Searching, a symbol x enters a window of the last 2 * FOLD_MAX_BODY symbols. The
 *     candidate period is the distance from x's previous occurrence in the window (at most
 *     FOLD_MAX_BODY); `cnt` counts positions in a row equal to the one `cand` back, and a
 *     mismatch takes the new candidate from x's previous occurrence (cnt = 1) or none.
 *   - When cnt reaches k = cand (or 2 for k = 1: three in a row, so a fold always saves a
 *     symbol), the last 2k symbols (3 for k = 1) are the body twice (three times): the
 *     window's older symbols go on, and a run starts with the last k as its body.
 *   - Running, a symbol equal to the body's next one extends the run (r counts full copies).
 *     Any other symbol ends it: the body goes on once, then the marker for (level, k, r),
 *     and the part of the next copy already seen is searched again, then the symbol.
 *   - A symbol older than 2 * FOLD_MAX_BODY in the window goes on (no square can reach it).
 *   - At the end of a chunk each level, lowest first, ends its runs the same way, then
 *     passes its window on.
 * Markers are numbered in order of creation; marker m is the symbol base + m (base: the
 * chunk's point count), so a level above folds runs of markers as it folds points.
 */

export const FOLD_MAX_BODY = 32
export const FOLD_LEVELS = 3
/** The window's ring: a power of two above 2 * FOLD_MAX_BODY. */
const WINDOW = 128
const MASK = WINDOW - 1

class Level {
  /** Per symbol: the position of its last search input, 0 for never (positions start at 1 and only grow, across chunks too). */
  last = new Float64Array(0)
  readonly ring = new Uint32Array(WINDOW)
  start = 1
  pos = 1
  cand = 0
  cnt = 0
  running = false
  k = 0
  r = 0
  phase = 0
  readonly body = new Uint32Array(FOLD_MAX_BODY)
}

/** The chunk's repeat markers, in order of creation. */
export interface FoldMarkers {
  level: number[]
  k: number[]
  r: number[]
}

export class LoopFolder {
  private readonly levels: Level[] = Array.from({ length: FOLD_LEVELS }, () => new Level())
  private base = 0
  private readonly ids = new Map<number, number>()
  readonly markers: FoldMarkers = { level: [], k: [], r: [] }

  /** `sink` receives the folded symbols (the last level's output). */
  constructor(private readonly sink: (symbol: number) => void) {}

  /** Starts a chunk whose points are below `base`. */
  reset(base: number): void {
    for (const L of this.levels) {
      L.start = L.pos
      L.running = false
      L.cand = L.cnt = 0
    }
    this.base = base
    this.ids.clear()
    this.markers.level.length = this.markers.k.length = this.markers.r.length = 0
  }

  add(point: number): void {
    this.feed(0, point)
  }

  /** Ends the chunk: every level's pending symbols go on. */
  flush(): void {
    for (let l = 0; l < FOLD_LEVELS; l++) {
      const L = this.levels[l]!
      while (L.running) this.closeRun(l)
      for (let j = L.start; j < L.pos; j++) this.emit(l, L.ring[j & MASK]!)
      L.start = L.pos
    }
  }

  private emit(level: number, x: number): void {
    if (level + 1 === FOLD_LEVELS) this.sink(x)
    else this.feed(level + 1, x)
  }

  /** The symbol of marker (level, k, r), made on first use: successor chains (chain.ts) make theirs here too. */
  markerSymbol(level: number, k: number, r: number): number {
    return this.base + this.intern(level, k, r)
  }

  private intern(level: number, k: number, r: number): number {
    const key = (r * 64 + k) * 4 + level
    let m = this.ids.get(key)
    if (m === undefined) {
      m = this.markers.level.length
      this.ids.set(key, m)
      this.markers.level.push(level)
      this.markers.k.push(k)
      this.markers.r.push(r)
    }
    return m
  }

  private endRun(level: number): void {
    const L = this.levels[level]!
    for (let i = 0; i < L.k; i++) this.emit(level, L.body[i]!)
    this.emit(level, this.base + this.intern(level, L.k, L.r))
    L.running = false
    L.start = L.pos
    L.cand = L.cnt = 0
  }

  private closeRun(level: number): void {
    const L = this.levels[level]!
    const partial = L.body.slice(0, L.phase)
    this.endRun(level)
    for (const x of partial) this.feed(level, x)
  }

  private feed(level: number, x: number): void {
    const L = this.levels[level]!
    if (!L.running) {
      this.search(level, x)
      return
    }
    if (x === L.body[L.phase]) {
      if (++L.phase === L.k) {
        L.r++
        L.phase = 0
      }
      return
    }
    this.closeRun(level)
    this.feed(level, x)
  }

  private search(level: number, x: number): void {
    const L = this.levels[level]!
    if (x >= L.last.length) {
      const grown = new Float64Array(Math.max(x + 1, 2 * L.last.length, 256))
      grown.set(L.last)
      L.last = grown
    }
    const p = L.pos++
    L.ring[p & MASK] = x
    if (L.cand !== 0 && L.ring[(p - L.cand) & MASK] === x) L.cnt++
    else {
      const q = L.last[x]!
      if (q >= L.start && p - q <= FOLD_MAX_BODY) {
        L.cand = p - q
        L.cnt = 1
      } else L.cand = L.cnt = 0
    }
    L.last[x] = p
    const k = L.cand
    if (k !== 0 && L.cnt >= (k === 1 ? 2 : k)) {
      const from = p + 1 - (k === 1 ? 3 : 2 * k)
      for (let j = L.start; j < from; j++) this.emit(level, L.ring[j & MASK]!)
      for (let i = 0; i < k; i++) L.body[i] = L.ring[(p + 1 - k + i) & MASK]!
      L.running = true
      L.k = k
      L.r = k === 1 ? 3 : 2
      L.phase = 0
      L.start = L.pos
      L.cand = L.cnt = 0
    } else if (L.pos - L.start > 2 * FOLD_MAX_BODY) {
      this.emit(level, L.ring[L.start & MASK]!)
      L.start++
    }
  }
}

/**
 * Undoes the folding: `folded` (its first `length` symbols) back to the chunk's `count`
 * points, the highest level's markers first. Bounded by `count`: a damaged chunk throws.
 */
export function unfold(folded: Uint32Array, length: number, base: number, markers: FoldMarkers, count: number): Uint32Array {
  let src: Uint32Array = folded
  let n = length
  for (let level = FOLD_LEVELS - 1; level >= 0; level--) {
    const dst = new Uint32Array(count)
    let m = 0
    for (let i = 0; i < n; i++) {
      const s = src[i]!
      const id = s - base
      if (id >= 0 && markers.level[id] === level) {
        const k = markers.k[id]!
        const copies = markers.r[id]! - 1
        if (k > m) throw new Error('a repeat marker has no body before it')
        if (m + copies * k > count) throw new Error('its repeats expand to more accesses than it declares')
        for (let c = 0; c < copies; c++, m += k) dst.copyWithin(m, m - k, m)
      } else {
        if (m === count) throw new Error('its repeats expand to more accesses than it declares')
        dst[m++] = s
      }
    }
    src = dst
    n = m
  }
  if (n !== count) throw new Error(`its folded order expands to ${n} accesses, expected ${count}`)
  return src
}

/**
 * Successor chains, the step of chunk codec `prsd-sequitur-v3` between loop folding and
 * SEQUITUR. Outside loops a program's point order is mostly straight-line code: once point
 * x has been followed by y, it is followed by y again (a basic block, a call's prologue, the
 * same path through a tree's descent). SEQUITUR pays its digram look-ups and substitutions
 * per symbol to learn that; here each symbol's *first* successor in the chunk predicts it,
 * and a run of L symbols that each follow their predecessor's first successor becomes one
 * chain marker (L). On a C++ program of standard containers 89% of the folded symbols are
 * predicted, and SEQUITUR sees 28% of them (4.4 of 15.8 M; docs/BENCHMARKS.md at cb83178).
 *
 * Rules (resources/native/core/src/codec/chain.c follows them to the symbol):
 *   - The first successor of x is the symbol that followed x's first occurrence in the chunk;
 *     it never changes within the chunk (a prediction that moved with the latest successor
 *     would make the same path give different markers each time, which SEQUITUR cannot share).
 *   - A symbol equal to its predecessor's first successor extends the run; any other symbol
 *     ends the run and goes on itself. A run of CHAIN_MIN_RUN or more goes on as its chain
 *     marker; a shorter one as its symbols (short runs are where the prediction depends most
 *     on which paths came first, and their markers split digrams SEQUITUR would share across
 *     contexts: with every run a marker, a tiled loop nest's chunks were 3.6% larger than v2's;
 *     from six on, as small, at 2.1x v2's speed on the C++ program; docs/BENCHMARKS.md at cb83178).
 *   - At the end of a chunk the run ends the same way. Chunks start afresh.
 * Chain markers are the loop folder's markers of level CHAIN_LEVEL with k = 1 and r = L,
 * numbered with them in order of creation (fold.ts), so one marker table serves both.
 */
import { FOLD_LEVELS, type FoldMarkers } from './fold'

/** The marker level of a chain (fold's levels are 0 .. FOLD_LEVELS - 1). */
export const CHAIN_LEVEL = FOLD_LEVELS
/** Shorter runs go on as their symbols. */
export const CHAIN_MIN_RUN = 6

const NONE = -1

export class SuccessorChains {
  /** Per symbol: its first successor in this chunk, NONE before it has one. */
  private first = new Int32Array(0)
  private prev = NONE
  private run = 0
  /** The symbol before the run. */
  private from = NONE

  /**
   * `marker(L)` makes (or finds) the chain marker of a run of L and returns its symbol;
   * `sink` receives the chained symbols.
   */
  constructor(private readonly marker: (length: number) => number, private readonly sink: (symbol: number) => void) {}

  /** Starts a chunk. */
  reset(): void {
    this.first.fill(NONE)
    this.prev = NONE
    this.run = 0
  }

  add(x: number): void {
    const prev = this.prev
    if (prev !== NONE) {
      const f = this.first[prev]!
      if (f === x) {
        this.run++
        this.prev = x
        return
      }
      if (f === NONE) this.first[prev] = x
    }
    this.flush()
    this.sink(x)
    this.from = x
    if (x >= this.first.length) {
      const grown = new Int32Array(Math.max(x + 1, 2 * this.first.length, 256)).fill(NONE)
      grown.set(this.first)
      this.first = grown
    }
    this.prev = x
  }

  /** Ends the run in progress (the end of a chunk). */
  flush(): void {
    if (this.run >= CHAIN_MIN_RUN) this.sink(this.marker(this.run))
    else for (let j = 0, x = this.from; j < this.run; j++) this.sink((x = this.first[x]!))
    this.run = 0
  }
}

/**
 * Undoes the chains: `tokens` (its first `length`) back to the folded order, at most `count`
 * symbols. Symbols below `base` are points (below `pointCount`), from `base` on markers; a
 * chain marker with nothing before it, or after a symbol with no successor yet, is damage.
 */
export function unchain(tokens: Uint32Array, length: number, base: number, markers: FoldMarkers, pointCount: number, count: number): { symbols: Uint32Array; length: number } {
  // Indexed by points, then by markers: a crafted `base` cannot make this large.
  const slot = (s: number): number => (s < base ? s : pointCount + s - base)
  const first = new Int32Array(pointCount + markers.level.length).fill(NONE)
  const out = new Uint32Array(count)
  let n = 0
  let prev = NONE
  for (let i = 0; i < length; i++) {
    const s = tokens[i]!
    const id = s - base
    if (id >= 0 && markers.level[id] === CHAIN_LEVEL) {
      const run = markers.r[id]!
      if (n + run > count) throw new Error('its chains expand to more accesses than it declares')
      for (let j = 0; j < run; j++) {
        const x = prev === NONE ? NONE : first[slot(prev)]!
        if (x === NONE) throw new Error('a chain marker follows a symbol with no successor')
        out[n++] = x
        prev = x
      }
    } else {
      if (s < base && s >= pointCount) throw new Error(`its grammar names access point ${s} of ${pointCount}`)
      if (n === count) throw new Error('its chains expand to more accesses than it declares')
      if (prev !== NONE && first[slot(prev)] === NONE) first[slot(prev)] = s
      out[n++] = s
      prev = s
    }
  }
  return { symbols: out, length: n }
}

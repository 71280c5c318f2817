/**
 * Whether a trace's first simulation is warmed by the whole program (CacheContext in
 * src/shared/cache-context.ts): decided before Valgrind starts, since the tool must be told to
 * emit the rest of the program's accesses. Pure.
 */
import type { HierarchyConfig } from '../../shared/domain'

/**
 * A layout filter places the data structures, and a loop transform finds its nest by the
 * points' lines, both known only at the end: those first simulations run after the naming,
 * over the stored trace, and cannot see the program's other accesses.
 */
export function runsBeside(config: HierarchyConfig): boolean {
  return (!config.layout || config.layout.length === 0) && (!config.transforms || config.transforms.length === 0)
}

/** The tool folds context accesses per line of at most this many bytes (its limit). */
const MAX_FOLD_LINE = 4096

/**
 * The line size the Valgrind tool folds context accesses by (the smallest cache line: a fold is
 * then exact at every level), or null when the trace gets no context: a whole-program trace
 * (nothing outside), `--no-context` (`context` false), no first simulation, or one that runs
 * after the naming.
 */
export function contextLineFor(functions: readonly string[], context: boolean | undefined, simulate: HierarchyConfig | undefined): number | null {
  if (functions.length === 0 || context === false || !simulate || !runsBeside(simulate) || simulate.levels.length === 0) return null
  let line = MAX_FOLD_LINE
  for (const l of simulate.levels) line = Math.min(line, l.lineSize)
  // A power of two (the simulator's lines are): the largest one not above the smallest line.
  return 2 ** Math.floor(Math.log2(Math.max(1, line)))
}

/**
 * "What is hot": a whole-program run's functions ranked by their first-level misses, the step
 * before choosing what to trace (`stride top`, the Launch dialog's "Find hot functions").
 *
 * Self costs only: a function's row holds the loads and stores of its own instructions. A
 * trace records accesses, not calls and returns (the tool's function entries feed the
 * correlator's frames as it runs and are not kept), so what a function's callees cost cannot
 * be added to it exactly, and no inclusive figure is made up.
 */
import type { RunReport } from './domain'
import { levelNames } from './report-model'

export interface HotFunction {
  /** 1 for the most first-level misses. */
  rank: number
  /** The function as the run's references name it (`do_mult`, `memcpy`), or `(no symbol)`. */
  function: string
  /**
   * What `stride trace --functions` takes to trace it: the name for a function of the
   * program, `LIBRARY:function` for another object's; null for accesses in no symbol.
   */
  traceName: string | null
  /** The object holding it, when not the traced program (`libc.so.6`); null for the program's own. */
  library: string | null
  reads: number
  writes: number
  /** Read plus write misses at each level of the run, by level name. */
  misses: Record<string, number>
  /** Its first-level misses over all of the run's first-level misses (0 when the run has none). */
  share: number
}

export interface HotFunctions {
  run: number
  /** The first level's name (`D1`, `L1`): what the ranking is by. */
  level: string
  /** The run's first-level accesses and misses. */
  accesses: number
  totalMisses: number
  /** Always false: see SELF_COSTS_NOTE. */
  inclusive: false
  note: string
  functions: HotFunction[]
}

export const SELF_COSTS_NOTE =
  "Self costs: each function's own loads and stores, not those of the functions it calls. The trace records accesses, not calls and returns, so costs including callees (inclusive) cannot be computed exactly and are not shown."

const NO_SYMBOL = '(no symbol)'

// A reference id's site: `VAR_KIND_LINE@SITE` (shared/reference-names.ts), where a function of
// another object than the program is `LIBRARY:function+0xOFFSET`.
const SITE = /_(?:Read|Write|Modify)(?:_\d+)?@(.+)$/
// A library's file name before the function: no ':' in it, and one ':' after (C++'s `ns::f` is no library).
const LIBRARY = /^([^:]+):(?!:)/

/** The object a reference's instruction is in, when its id names one other than the program. */
function libraryOf(id: string, fn: string): string | null {
  const site = SITE.exec(id)?.[1]
  if (!site) return null
  const m = LIBRARY.exec(site)
  // `libc.so.6:memcpy+0x1a`: the prefix is a library only when the function follows it.
  return m && site.startsWith(`${m[1]}:${fn}+`) ? m[1]! : null
}

/** The run's functions by first-level misses (most first), then by accesses, then by name. */
export function rankHotFunctions(report: RunReport): HotFunctions {
  const names = levelNames(report.config)
  const first = names[0] ?? ''
  const rows = new Map<string, Omit<HotFunction, 'rank' | 'share'>>()
  for (const ref of report.references) {
    const fn = ref.function
    const library = fn ? libraryOf(ref.id, fn) : null
    const traceName = fn ? (library ? `${library}:${fn}` : fn) : null
    const key = traceName ?? NO_SYMBOL
    let row = rows.get(key)
    if (!row) {
      row = { function: fn ?? NO_SYMBOL, traceName, library, reads: 0, writes: 0, misses: Object.fromEntries(names.map((n) => [n, 0])) }
      rows.set(key, row)
    }
    row.reads += ref.reads
    row.writes += ref.writes
    for (const n of names) {
      const l = ref.levels[n]
      if (l) row.misses[n]! += l.readMisses + l.writeMisses
    }
  }
  const totals = report.levels.find((l) => l.name === first)
  const totalMisses = totals ? totals.readMisses + totals.writeMisses : 0
  const functions = [...rows.values()]
    .sort((a, b) => b.misses[first]! - a.misses[first]! || b.reads + b.writes - (a.reads + a.writes) || a.function.localeCompare(b.function))
    .map((r, i) => ({ rank: i + 1, ...r, share: totalMisses > 0 ? r.misses[first]! / totalMisses : 0 }))
  return {
    run: report.run,
    level: first,
    accesses: totals ? totals.reads + totals.writes : 0,
    totalMisses,
    inclusive: false,
    note: SELF_COSTS_NOTE,
    functions
  }
}

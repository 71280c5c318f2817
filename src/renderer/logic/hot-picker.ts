/** The function picker's view of a whole-program ranking (shared/hot-functions.ts): the program's own functions only. */
import type { FunctionSymbol } from '../../shared/domain'
import type { HotFunctions } from '../../shared/hot-functions'

export interface PickerHeat {
  /** The level the misses are of (`D1`). */
  level: string
  /** Each listed function's own misses and share of the run's misses at that level. */
  byName: ReadonlyMap<string, { misses: number; share: number }>
  /** The listed function with most misses (none when no listed function missed). */
  hottest: string | null
}

/**
 * The ranking's rows for the picker's functions: those of the program (not a library's), by
 * their linked name or, for C++, their demangled one (what the report may name them by).
 */
export function pickerHeat(functions: readonly FunctionSymbol[], ranked: HotFunctions): PickerHeat {
  const own = new Map<string, { misses: number; share: number }>()
  for (const f of ranked.functions) if (f.library === null && f.traceName !== null) own.set(f.function, { misses: f.misses[ranked.level] ?? 0, share: f.share })
  const byName = new Map<string, { misses: number; share: number }>()
  let hottest: string | null = null
  let most = 0
  for (const f of functions) {
    const entry = own.get(f.name) ?? (f.demangled ? own.get(f.demangled) : undefined)
    if (!entry) continue
    byName.set(f.name, entry)
    if (entry.misses > most) {
      most = entry.misses
      hottest = f.name
    }
  }
  return { level: ranked.level, byName, hottest }
}

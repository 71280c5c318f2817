/**
 * What warmed the cache of a function-scoped trace's run. A trace of chosen functions stores
 * only their accesses; its first simulation can also be fed the rest of the program's accesses
 * (context: they change the cache, count for no reference), so the functions' misses are those
 * of the whole run, as Cachegrind counts them. Every other run of that session (what-ifs, a
 * `stride simulate`) replays the stored trace alone: cold, function-only. A whole-program
 * trace has no such distinction (null).
 */
export type CacheContext = 'whole-program' | 'function-only'

/** The evictor name of every eviction made by the rest of the program. */
export const REST_OF_PROGRAM = 'rest of the program'

/** How a run's figures are qualified wherever it is shown (run labels, report headers). */
export function cacheContextText(context: CacheContext): string {
  return context === 'whole-program' ? 'warmed by the whole program' : 'cold, function-only'
}

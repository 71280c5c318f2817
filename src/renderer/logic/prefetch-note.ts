/**
 * What the what-if form says about prefetching: the simulator's timeliness assumption, stated
 * once, and how a run's prefetches fared under it (issued, used before they left).
 */
import type { RunReport } from '../../shared/domain'

/** The assumption, as the form and docs/CLI.md state it. */
export const PREFETCH_TIMING =
  'Prefetch timing: the simulator has no clock, so a prefetched line is in the cache at once, as if the prefetcher were never late. A prefetch counts as useful only when a demand access uses the line before it is evicted; one evicted first only took room. Read a prefetcher’s gain as an upper bound: on short runs a real prefetcher issues too late to save as much.'

/** "D1: 12,345 prefetches, 9,876 used before they left (80%)" per cache level that prefetched. */
export function prefetchOutcomes(report: RunReport): string[] {
  return report.levels
    .filter((l) => (l.kind ?? 'cache') === 'cache' && (l.prefetches ?? 0) > 0)
    .map((l) => {
      const issued = l.prefetches!
      const useful = l.usefulPrefetches ?? 0
      return `${l.name}: ${issued.toLocaleString('en-US')} prefetches, ${useful.toLocaleString('en-US')} used before they left (${Math.round((100 * useful) / issued)}%)`
    })
}

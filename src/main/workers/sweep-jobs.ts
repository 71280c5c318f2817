/**
 * How a sweep's hierarchies are split over the pool's workers: those that share a first level
 * (simulate/first-level-group.ts) go to one worker, where that level runs once for all of them,
 * and the rest are spread so that each worker replays the trace about as often. Pure.
 */
import type { HierarchyConfig } from '../../shared/domain'
import { shareableFirstLevel } from '../simulate/first-level-group'

/** What one more hierarchy on a shared first level costs, against a whole replay (lz4's LL sweep: ~0.1 of one). */
const FOLLOWER_COST = 0.15

/** Config indices per worker (at most `size` workers, none empty), each list ascending. */
export function sweepJobs(configs: readonly HierarchyConfig[], size: number): number[][] {
  const units = new Map<string, number[]>()
  configs.forEach((c, i) => {
    const key = shareableFirstLevel(c)
    const id = key === null ? `alone ${i}` : `key ${key}|${c.timelineInterval ?? ''}`
    units.set(id, [...(units.get(id) ?? []), i])
  })
  const cost = (unit: number[]) => 1 + FOLLOWER_COST * (unit.length - 1)
  // Largest first, each to the least loaded worker (ties: the first).
  const ordered = [...units.values()].sort((a, b) => cost(b) - cost(a) || a[0]! - b[0]!)
  const workers = Math.max(1, Math.min(size, ordered.length))
  const jobs = Array.from({ length: workers }, () => ({ load: 0, configs: [] as number[] }))
  for (const unit of ordered) {
    const least = jobs.reduce((best, j) => (j.load < best.load ? j : best))
    least.load += cost(unit)
    least.configs.push(...unit)
  }
  return jobs.map((j) => j.configs.sort((a, b) => a - b))
}

/**
 * Hierarchies that share their first cache level and their TLB levels (a sweep of what lies
 * below: L2 or LL sizes, ways, line sizes), simulated with that level run once. The first level
 * runs alone over the trace and keeps what leaves it for the level below (its misses, with
 * their points, bytes and kinds, and its write-backs, in order); each hierarchy of the group
 * runs only its lower levels over that stream, then takes the first level's and the TLB
 * levels' counts, evictors and timeline (resources/native/core/src/sim: sim_capture,
 * sim_follow, sim_adopt). Exact: nothing below the first level reaches back into it under the
 * fused rules (LRU, write-back, write-allocate, no inclusion, no prefetcher), so each run is
 * the one a replay of the trace through its whole hierarchy gives, number for number
 * (first-level-group.test.ts). A sweep of N lower levels then costs one first level and N
 * lower-level runs over a few percent of the accesses, instead of N whole replays.
 */
import type { HierarchyConfig } from '../../shared/domain'
import type { AccessBatch } from './hierarchy'
import { NativeHierarchy, type NativeHierarchyOptions } from './native-hierarchy'
import { TouchHierarchy } from './touch-hierarchy'

/**
 * What a hierarchy's first level is, as far as its run goes (names aside), or null where it
 * cannot share it: a level that is not on the fused path, or a lower line smaller than the first
 * level's (accesses are clipped to the smallest line of the hierarchy, so the first level would
 * see other accesses).
 */
export function firstLevelKey(config: HierarchyConfig): string | null {
  const caches = config.levels
  if (caches.length < 2) return null
  for (const l of caches) {
    const fused = (l.policy ?? 'lru') === 'lru' && l.writePolicy !== 'write-through' && l.writeAllocate !== false && !l.inclusive && (l.prefetch ?? 'none') === 'none'
    if (!fused || l.lineSize < caches[0]!.lineSize) return null
  }
  const tlb = config.tlb ?? []
  if (tlb.some((t) => (t.policy ?? 'lru') !== 'lru')) return null
  const first = caches[0]!
  return JSON.stringify([first.size, first.assoc, first.lineSize, Boolean(config.cachegrindCompatible), tlb.map((t) => [t.entries, t.assoc, t.pageSize])])
}

/** The hierarchy of the first level alone: its cache level and the TLB levels. */
function firstLevelOf(config: HierarchyConfig): HierarchyConfig {
  return { ...config, levels: [config.levels[0]!] }
}

export type GroupOptions = Omit<NativeHierarchyOptions, 'tlbThread' | 'missLevel' | 'adaptiveIntervals' | 'pointParents'>

export class FirstLevelGroup {
  /** One hierarchy per config, in the configs' order: their results are read as any hierarchy's, once the group has finished. */
  readonly members: Array<NativeHierarchy | TouchHierarchy>
  private readonly first: NativeHierarchy | TouchHierarchy
  private finished = false

  /**
   * `configs` share firstLevelKey (checked). `byTouch`: per (point, data structure), as
   * TouchHierarchy counts; batches then come with each access's data structure.
   */
  constructor(configs: HierarchyConfig[], pointKinds: Uint8Array, options: GroupOptions, byTouch: boolean) {
    const key = firstLevelKey(configs[0]!)
    if (key === null || configs.some((c) => firstLevelKey(c) !== key)) throw new Error('these hierarchies do not share a first level')
    // The first level's stream is read from its one Sim: never split.
    const unsplit = { ...options, tlbThread: false }
    if (byTouch) {
      const first = new TouchHierarchy(firstLevelOf(configs[0]!), pointKinds, unsplit)
      const members = configs.map((c) => new TouchHierarchy(c, pointKinds, unsplit))
      // Their simulators learn each touch as the first level's does.
      first.onPublish = (kinds, timeline, parents) => {
        for (const m of members) m.native.setPointKinds(kinds, timeline, parents)
      }
      this.first = first
      this.members = members
    } else {
      this.first = new NativeHierarchy(firstLevelOf(configs[0]!), pointKinds, unsplit)
      this.members = configs.map((c) => new NativeHierarchy(c, pointKinds, unsplit))
    }
    this.nativeOf(this.first).captureFirstLevel()
  }

  /** One batch through the first level, then each member's lower levels over what it let through. */
  run(batch: AccessBatch, variables: Int32Array | null): void {
    if (this.first instanceof TouchHierarchy) {
      if (!variables) throw new Error('a per-data-structure group needs each access\'s data structure')
      this.first.run(batch, variables)
    } else this.first.run(batch)
    const first = this.nativeOf(this.first)
    for (const m of this.members) this.nativeOf(m).follow(first)
    first.clearCaptured()
  }

  /** Ends every run: each member's then holds the whole hierarchy's results. Call once. */
  finish(): void {
    if (this.finished) throw new Error('the group has already finished')
    this.finished = true
    this.first.finish()
    const first = this.nativeOf(this.first)
    for (const m of this.members) {
      m.finish()
      this.nativeOf(m).adopt(first)
      if (m instanceof TouchHierarchy && this.first instanceof TouchHierarchy) m.takeTouches(this.first)
    }
  }

  private nativeOf(h: NativeHierarchy | TouchHierarchy): NativeHierarchy {
    return h instanceof TouchHierarchy ? h.native : h
  }
}

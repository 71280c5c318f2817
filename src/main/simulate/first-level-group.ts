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
  if ((config.tlb ?? []).some((t) => (t.policy ?? 'lru') !== 'lru')) return null
  return firstLevelOf(config)
}

/**
 * firstLevelKey for a run that reads the trace as it is: a layout filter or a loop transform
 * feeds its hierarchy other accesses than the first level's own run would see, so it shares
 * and follows none.
 */
export function shareableFirstLevel(config: HierarchyConfig): string | null {
  return (config.layout?.length ?? 0) > 0 || (config.transforms?.length ?? 0) > 0 ? null : firstLevelKey(config)
}

/** What decides a first level's run: its cache level's geometry, the mode and the TLB levels (names aside). */
export function firstLevelOf(config: HierarchyConfig): string {
  const first = config.levels[0]!
  return JSON.stringify([first.size, first.assoc, first.lineSize, Boolean(config.cachegrindCompatible), (config.tlb ?? []).map((t) => [t.entries, t.assoc, t.pageSize])])
}

/** The hierarchy of the first level alone: its cache level and the TLB levels. */
export function firstLevelAlone(config: HierarchyConfig): HierarchyConfig {
  return { ...config, levels: [config.levels[0]!] }
}

export type GroupOptions = Omit<NativeHierarchyOptions, 'tlbThread' | 'missLevel' | 'pointParents'>

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
      const first = new TouchHierarchy(firstLevelAlone(configs[0]!), pointKinds, unsplit)
      const members = configs.map((c) => new TouchHierarchy(c, pointKinds, unsplit))
      // Their simulators learn each touch as the first level's does.
      first.onPublish = (kinds, timeline, parents) => {
        for (const m of members) m.native.setPointKinds(kinds, timeline, parents)
      }
      this.first = first
      this.members = members
    } else {
      this.first = new NativeHierarchy(firstLevelAlone(configs[0]!), pointKinds, unsplit)
      this.members = configs.map((c) => new NativeHierarchy(c, pointKinds, unsplit))
    }
    this.nativeOf(this.first).captureFirstLevel()
  }

  /**
   * Called with each batch's stream, encoded (NativeHierarchy.takeCaptured), once the members
   * have followed it: a trace's first run keeps it for later what-ifs (store/first-level-store.ts).
   */
  onStream: ((block: Uint8Array) => void) | null = null

  /** One batch through the first level, then each member's lower levels over what it let through. */
  run(batch: AccessBatch, variables: Int32Array | null): void {
    if (this.first instanceof TouchHierarchy) this.first.run(batch, this.variablesFor(variables))
    else this.first.run(batch)
    this.followBatch()
  }

  /**
   * run, the first level's part on Node's thread pool (the batch's arrays must not change until
   * it settles). `recorded`: as NativeHierarchy.runAsync's (context accesses make the first
   * level's stream incomplete: its members then refuse to follow).
   */
  async runAsync(batch: AccessBatch, variables: Int32Array | null, recorded = batch.count): Promise<void> {
    if (this.first instanceof TouchHierarchy) await this.first.runAsync(batch, this.variablesFor(variables), recorded)
    else await this.first.runAsync(batch, recorded)
    this.followBatch()
  }

  /** The point table grew (a trace still recording): the first level's, and through it the members'. */
  setPointKinds(pointKinds: Uint8Array, pointVariables?: Int32Array): void {
    // A touch hierarchy's members learn its touches as it publishes them; their own tables only size their results.
    this.first.setPointKinds(pointKinds, pointVariables)
    for (const m of this.members) m.setPointKinds(pointKinds, pointVariables)
  }

  /** Bytes of C memory the group holds. */
  get bytes(): number {
    return this.first.bytes + this.members.reduce((a, m) => a + m.bytes, 0)
  }

  /** The first level's own hierarchy (its cache level and TLB levels), finished with the group: what a trace stores of it. */
  get firstLevel(): NativeHierarchy | TouchHierarchy {
    return this.first
  }

  private variablesFor(variables: Int32Array | null): Int32Array {
    if (!variables) throw new Error("a per-data-structure group needs each access's data structure")
    return variables
  }

  private followBatch(): void {
    const first = this.nativeOf(this.first)
    for (const m of this.members) this.nativeOf(m).follow(first)
    if (this.onStream) this.onStream(first.takeCaptured())
    else first.clearCaptured()
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

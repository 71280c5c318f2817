/**
 * The fully associative LRU shadow of one cache level run by the native core
 * (resources/native/core/src/sim/shadow.c): the same counts as analysis/advice/miss-classes.ts's
 * MissClassifier, the reference model (native-miss-classes.test.ts holds them equal), at native
 * speed and in batches, so a trace's first simulation can feed it each chunk beside the
 * hierarchy and the advisor reads stored counts instead of replaying the trace.
 */
import type { CacheLevelConfig } from '../../shared/domain'
import { MAX_REMEMBERED_LINES, MAX_SET_BITMAP, type ShadowCounts } from '../analysis/advice/miss-classes'
import { nativeCore } from '../native/core'
import type { AccessBatch } from './hierarchy'

type Handle = { readonly __shadow: unique symbol }

interface ShadowExports {
  shadowCreate(size: number, assoc: number, lineSize: number, maxRemembered: number, maxSetBitmap: number): Handle
  shadowRun(s: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, kinds: Uint8Array | null): void
  shadowRunAsync(s: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, kinds: Uint8Array | null): Promise<void>
  shadowResult(s: Handle, points: number): ShadowCounts
}

const core = (): ShadowExports => nativeCore() as unknown as ShadowExports

export class NativeMissClassifier {
  private readonly handle: Handle

  constructor(cache: Pick<CacheLevelConfig, 'size' | 'assoc' | 'lineSize'>) {
    this.handle = core().shadowCreate(cache.size, cache.assoc, cache.lineSize, MAX_REMEMBERED_LINES, MAX_SET_BITMAP)
  }

  /** One batch; `kinds` (per point, the stored codes) doubles a modify's accesses, as the run counts them. */
  run(batch: AccessBatch, kinds: Uint8Array | null): void {
    core().shadowRun(this.handle, batch.count, batch.points, batch.addresses, batch.sizes, kinds)
  }

  /** The same on Node's thread pool (the arrays must not change until it settles). */
  runAsync(batch: AccessBatch, kinds: Uint8Array | null): Promise<void> {
    return core().shadowRunAsync(this.handle, batch.count, batch.points, batch.addresses, batch.sizes, kinds)
  }

  /** The counts for a point table of `points` (at least every point fed). */
  counts(points: number): ShadowCounts {
    return core().shadowResult(this.handle, points)
  }
}

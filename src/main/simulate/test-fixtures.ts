/** Small builders shared by the simulator's unit tests. */
import type { CacheLevelConfig } from '../../shared/domain'
import type { AccessBatch } from './hierarchy'

/** An LRU level named L1 unless `extra` says otherwise. */
export const level = (size: number, assoc: number, lineSize: number, extra: Partial<CacheLevelConfig> = {}): CacheLevelConfig => ({
  name: extra.name ?? 'L1',
  size,
  assoc,
  lineSize,
  policy: 'lru',
  ...extra
})

/** A batch from [point, address, size] triples, in execution order. */
export function batch(accesses: Array<[point: number, address: number, size: number]>): AccessBatch {
  return {
    count: accesses.length,
    points: Uint32Array.from(accesses.map((a) => a[0])),
    addresses: Float64Array.from(accesses.map((a) => a[1])),
    sizes: Uint16Array.from(accesses.map((a) => a[2]))
  }
}

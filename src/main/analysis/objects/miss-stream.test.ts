import { describe, expect, it } from 'vitest'
import type { HierarchyConfig } from '../../../shared/domain'
import { MissStream } from './miss-stream'

const config: HierarchyConfig = {
  levels: [
    { name: 'L1', size: 256, assoc: 2, lineSize: 64, policy: 'lru' },
    { name: 'L2', size: 1024, assoc: 4, lineSize: 64, policy: 'lru' }
  ],
  cachegrindCompatible: false
}

function batch(addresses: number[], points: number[]) {
  return { count: addresses.length, points: Uint32Array.from(points), addresses: Float64Array.from(addresses), sizes: new Uint16Array(addresses.length).fill(8) }
}

describe('MissStream', () => {
  it('yields each miss at the chosen level with its access index, point and traced address', () => {
    const s = new MissStream({ config, pointKinds: new Uint8Array([0, 0]), level: 0 })
    // 0 misses (cold), 8 hits (same line), 64 misses, 0 hits again.
    const a = s.run(batch([0, 8, 64, 0], [0, 1, 1, 0]))
    expect(a.count).toBe(2)
    expect([...a.access.slice(0, 2)]).toEqual([0, 2])
    expect([...a.point.slice(0, 2)]).toEqual([0, 1])
    expect([...a.address.slice(0, 2)]).toEqual([0, 64])
    // Access indexes continue across batches; the miss count agrees with the level totals.
    const b = s.run(batch([4096, 8192, 12288], [0, 0, 1]))
    expect([...b.access.slice(0, b.count)]).toEqual([4, 5, 6])
    expect(b.accessesSoFar).toBe(7)
    const t = s.totals()[0]!
    expect(t.readMisses + t.writeMisses).toBe(5)
  })

  it('reports the outer level and maps addresses for the simulator while yielding the traced ones', () => {
    const s = new MissStream({
      config,
      pointKinds: new Uint8Array([0]),
      level: 1,
      mapAddresses: (from, to, n) => {
        for (let i = 0; i < n; i++) to[i] = from[i]! + 64
      }
    })
    const r = s.run(batch([0, 0], [0, 0]))
    expect(r.count).toBe(1)
    expect(r.address[0]).toBe(0)
    expect(() => new MissStream({ config, pointKinds: new Uint8Array(1), level: 2 })).toThrow(/not in this hierarchy/)
  })

  it('counts many misses (grows its buffers)', () => {
    const s = new MissStream({ config, pointKinds: new Uint8Array([1]), level: 0 })
    const n = 5000
    const r = s.run(batch(Array.from({ length: n }, (_, i) => i * 64), new Array(n).fill(0)))
    expect(r.count).toBe(n)
    expect(r.access[n - 1]).toBe(n - 1)
  })
})

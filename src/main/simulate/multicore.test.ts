import { describe, expect, it } from 'vitest'
import { MultiCoreHierarchy, placeThreads, type ThreadedAccesses } from './multicore'
import type { CacheLevelConfig } from '../../shared/domain'

const L1: CacheLevelConfig = { name: 'L1', size: 1024, assoc: 2, lineSize: 64, policy: 'lru' }
const LL = { name: 'LL', size: 8192, assoc: 4, lineSize: 64, policy: 'lru' as const, shared: true }

/** Accesses from a tiny language: "T:K@ADDR" with K r|w|m, 8 bytes each; point = kind. */
function batch(text: string): ThreadedAccesses {
  const items = text.trim().split(/\s+/).map((s) => /^(\d+):([rwm])@(\d+)$/.exec(s)!)
  const n = items.length
  return {
    count: n,
    points: Uint32Array.from(items.map((m) => 'rwm'.indexOf(m[2]!))),
    addresses: Float64Array.from(items.map((m) => Number(m[3]))),
    sizes: new Uint16Array(n).fill(8),
    threads: Uint32Array.from(items.map((m) => Number(m[1])))
  }
}
const KINDS = Uint8Array.from([0, 1, 2])

function simulate(text: string, cores: number, levels = [L1, LL], map: ((a: number) => number) | null = null) {
  const sim = new MultiCoreHierarchy({ levels, cores, placement: placeThreads([1, 2], cores) }, KINDS, map)
  sim.run(batch(text))
  return sim.finish()
}

describe('the multi-core hierarchy', () => {
  it('calls misses on a line two cores write at different bytes false sharing', () => {
    const r = simulate('1:m@4096 2:m@4104 1:m@4096 2:m@4104 1:m@4096', 2)
    // Thread 1's second and third and thread 2's second lost the line to the other's write.
    expect(r.coherence).toEqual({ trueSharing: 0, falseSharing: 3, invalidations: 4 })
    expect(r.points.falseSharing[2]).toBe(3)
    expect(r.levels[0]!.readMisses).toBe(5)
    // The shared level kept the line after the first miss.
    expect(r.levels[1]!.readMisses).toBe(1)
    expect([...r.lines.values()][0]).toMatchObject({ falseSharing: 3, invalidations: 4 })
    expect(r.invalidationEdges.get(0 * 2 + 1)).toBe(2)
    expect(r.invalidationEdges.get(1 * 2 + 0)).toBe(2)
  })

  it('calls them true sharing when the bytes are the same', () => {
    // Thread 2's first access is cold; thread 1's read lost the line to it; thread 2's write
    // hits its shared copy (thread 1 only read) and takes the line from core 0 again.
    const r = simulate('1:m@4096 2:m@4096 1:r@4096 2:w@4096 1:r@4100', 2)
    expect(r.coherence).toEqual({ trueSharing: 2, falseSharing: 0, invalidations: 2 })
  })

  it('has no coherence misses on one core, nor for reads only, nor when the bytes lie on other lines', () => {
    expect(simulate('1:m@4096 2:m@4104 1:m@4096 2:m@4104', 1).coherence).toEqual({ trueSharing: 0, falseSharing: 0, invalidations: 0 })
    expect(simulate('1:r@4096 2:r@4104 1:r@4096 2:r@4104', 2).coherence).toEqual({ trueSharing: 0, falseSharing: 0, invalidations: 0 })
    expect(simulate('1:m@4096 2:m@4160 1:m@4096 2:m@4160', 2).coherence).toEqual({ trueSharing: 0, falseSharing: 0, invalidations: 0 })
  })

  it('follows a layout map: padding the second counter onto its own line removes the false sharing', () => {
    const pad = (a: number) => (a >= 4104 ? a + 56 : a)
    expect(simulate('1:m@4096 2:m@4104 1:m@4096 2:m@4104', 2, [L1, LL], pad).coherence.falseSharing).toBe(0)
  })

  it('does not call a miss after the core\'s own eviction coherence', () => {
    // Direct-mapped 2-line L1: thread 1 evicts its own line, then thread 2 writes it.
    const tiny: CacheLevelConfig = { name: 'L1', size: 128, assoc: 1, lineSize: 64, policy: 'lru' }
    const r = simulate('1:r@0 1:r@128 2:w@8 1:r@0', 2, [tiny])
    expect(r.coherence).toEqual({ trueSharing: 0, falseSharing: 0, invalidations: 0 })
  })

  it('breaks accesses and first-level misses down by thread', () => {
    const r = simulate('1:m@4096 2:m@4104 1:m@4096', 2)
    expect(r.threads.get(1)!.accesses[2]).toBe(2)
    expect(r.threads.get(1)!.misses[2]).toBe(2)
    expect(r.threads.get(2)!.misses[2]).toBe(1)
  })

  it('places threads round-robin unless told', () => {
    expect([...placeThreads([1, 2, 3], 2)]).toEqual([[1, 0], [2, 1], [3, 0]])
    expect([...placeThreads([1, 2, 3], 2, new Map([[3, 1]]))]).toEqual([[1, 0], [2, 1], [3, 1]])
  })
})

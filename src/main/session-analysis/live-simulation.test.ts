import { describe, expect, it } from 'vitest'
import type { HierarchyConfig } from '../../shared/domain'
import type { TimelineCell } from '../simulate/hierarchy'
import { NativeHierarchy } from '../simulate/native-hierarchy'
import { TouchHierarchy } from '../simulate/touch-hierarchy'
import type { PointRecord } from '../store/session-writer'
import { LiveSimulation } from './live-simulation'
import { timelineIntervalOf } from './session-simulation'

const CONFIG: HierarchyConfig = {
  levels: [
    { name: 'L1', size: 4096, assoc: 2, lineSize: 64, policy: 'lru' },
    { name: 'L2', size: 16384, assoc: 4, lineSize: 64, policy: 'lru' }
  ],
  tlb: [{ name: 'DTLB', entries: 8, assoc: 2, pageSize: 4096 }],
  cachegrindCompatible: false
}
const KINDS = [0, 1, 2, 0, 1, 0, 0, 2]

/** A trace of `n` accesses whose points appear one by one (point p first at access p * 997). */
function trace(n: number) {
  const points = new Uint32Array(n)
  const addresses = new Float64Array(n)
  const sizes = new Uint16Array(n).fill(8)
  let x = 99
  for (let i = 0; i < n; i++) {
    const known = Math.min(KINDS.length, 1 + Math.floor(i / 997))
    x = (x * 1103515245 + 12345) >>> 0
    const p = x % known
    points[i] = p
    addresses[i] = p * (1 << 20) + (p % 2 ? (x >>> 8) % 65536 : i * 8) * 8
  }
  return { points, addresses, sizes }
}

const table = (n: number): PointRecord[] => Array.from({ length: n }, (_, p) => ({ idx: p, pc: 0x1000 + p, kind: KINDS[p]!, accesses: 0, firstAddress: 0 }))

/** Feeds the trace in chunks of `chunk`, each with the points it names so far, as the session writer does. */
async function feed(live: LiveSimulation, t: ReturnType<typeof trace>, chunk: number, variables?: Int32Array): Promise<void> {
  const n = t.points.length
  const feeds: Array<Promise<void>> = []
  for (let from = 0; from < n; from += chunk) {
    const to = Math.min(n, from + chunk)
    let named = 0
    for (let i = 0; i < to; i++) named = Math.max(named, t.points[i]! + 1)
    feeds.push(live.feed(to - from, t.points.slice(from, to), t.addresses.slice(from, to), t.sizes.slice(from, to), table(named), variables ? variables.slice(from, to) : null))
  }
  await Promise.all(feeds)
}

/** Cells summed per (interval, level, variable), in that order. */
function summed(cells: readonly TimelineCell[]): TimelineCell[] {
  const by = new Map<string, TimelineCell>()
  for (const c of cells) {
    const key = `${c.interval}/${c.level}/${c.variable}`
    const known = by.get(key)
    if (known) known.misses += c.misses
    else by.set(key, { ...c })
  }
  return [...by.values()].sort((a, b) => a.interval - b.interval || a.level - b.level || a.variable - b.variable)
}

describe('LiveSimulation', () => {
  it('simulated chunk by chunk, with the point table growing, gives the run of the whole stored trace at its interval', async () => {
    for (const [n, chunk] of [[30_000, 4096], [7_777, 1000], [150, 64]] as const) {
      const t = trace(n)
      const live = new LiveSimulation(CONFIG)
      await feed(live, t, chunk)
      const kinds = Uint8Array.from(KINDS.slice(0, Math.max(...t.points) + 1))
      const got = await live.finish(kinds, n)
      if (typeof got === 'string') throw new Error(got)
      const interval = timelineIntervalOf(CONFIG, n)
      expect(got.interval).toBe(interval)
      const whole = new NativeHierarchy(CONFIG, kinds, { pointVariables: Int32Array.from(kinds, (_, p) => p), variableCount: kinds.length, timelineInterval: interval })
      whole.run({ count: n, ...t })
      whole.finish()
      expect(Array.from(got.hierarchy.pointResults())).toEqual(Array.from(whole.pointResults()))
      expect(got.hierarchy.evictorEntries()).toEqual(whole.evictorEntries())
      expect(summed(got.cells)).toEqual(summed(whole.timelineCells()))
      expect(new Set(got.cells.map((c) => c.interval)).size).toBeLessThanOrEqual(100)
    }
  })

  it('with each access\'s data structure, counts per (point, structure) and folds to the same run', async () => {
    const n = 20_000
    const t = trace(n)
    // Odd points alternate between two structures by address; even ones stay on one.
    const variables = Int32Array.from(t.points, (p, i) => (p % 2 ? 1 + (Math.floor(t.addresses[i]! / 4096) % 2) : 3))
    const live = new LiveSimulation(CONFIG)
    await feed(live, t, 4096, variables)
    const kinds = Uint8Array.from(KINDS.slice(0, Math.max(...t.points) + 1))
    const got = await live.finish(kinds, n)
    if (typeof got === 'string') throw new Error(got)
    if (!(got.hierarchy instanceof TouchHierarchy)) throw new Error('not simulated per data structure')
    const interval = timelineIntervalOf(CONFIG, n)
    const whole = new TouchHierarchy(CONFIG, kinds, { pointVariables: Int32Array.from(kinds, (_, p) => p), variableCount: kinds.length, timelineInterval: interval })
    whole.run({ count: n, ...t }, variables)
    whole.finish()
    expect(got.hierarchy.touchResults()).toEqual(whole.touchResults())
    expect(got.hierarchy.touchResults().count).toBeGreaterThan(kinds.length)
    // A chunk without its column after chunks with one: the run is not trusted.
    const mixed = new LiveSimulation(CONFIG)
    const two = [0, 1].map(() => ({ points: new Uint32Array(10), addresses: Float64Array.from({ length: 10 }, (_, i) => i * 64), sizes: new Uint16Array(10).fill(8) }))
    await mixed.feed(10, two[0]!.points, two[0]!.addresses, two[0]!.sizes, table(1), new Int32Array(10))
    await mixed.feed(10, two[1]!.points, two[1]!.addresses, two[1]!.sizes, table(1), null)
    expect(await mixed.finish(kinds.subarray(0, 1), 20)).toBe('a chunk came without its data structures')
  })

  it('keeps the user interval as it is', async () => {
    const t = trace(5000)
    const config = { ...CONFIG, timelineInterval: 300 }
    const live = new LiveSimulation(config)
    await feed(live, t, 1024)
    const got = await live.finish(Uint8Array.from(KINDS), 5000)
    if (typeof got === 'string') throw new Error(got)
    expect(got.interval).toBe(300)
    expect(Math.max(...got.cells.map((c) => c.interval))).toBe(Math.floor(4999 / 300))
  })

  it('says why when its run is not the stored trace (the caller then simulates that): accesses missing, a kind changed, a failed batch, too much memory', async () => {
    const t = trace(4000)
    const kinds = Uint8Array.from(KINDS.slice(0, 5))
    const missing = new LiveSimulation(CONFIG)
    await feed(missing, t, 1000)
    expect(await missing.finish(kinds, 5000)).toBe('4000 of 5000 accesses were fed')

    const changed = new LiveSimulation(CONFIG)
    await feed(changed, t, 1000)
    const other = kinds.slice()
    other[2] = 1
    expect(await changed.finish(other, 4000)).toBe('point 2 changed its kind after it was fed')

    const failed = new LiveSimulation(CONFIG)
    // A point the chunk's table does not hold: the core refuses the batch; later chunks are ignored.
    await failed.feed(2, Uint32Array.from([0, 3]), Float64Array.from([0, 64]), Uint16Array.from([8, 8]), table(1))
    await feed(failed, t, 1000)
    expect(await failed.finish(kinds, 4002)).toMatch(/access point 3 is outside the point table/)

    const big = new LiveSimulation(CONFIG, 1024)
    await feed(big, t, 1000)
    expect(await big.finish(kinds, 4000)).toMatch(/outgrew/)

    const dropped = new LiveSimulation(CONFIG)
    const feeding = feed(dropped, t, 1000)
    dropped.drop('cancelled')
    await feeding
    expect(await dropped.finish(kinds, 4000)).toBe('cancelled')
    expect(await new LiveSimulation(CONFIG).finish(kinds, 0)).toBe('no chunk was fed')
  })
})

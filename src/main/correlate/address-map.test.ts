import { describe, expect, it } from 'vitest'
import { AddressMap, UNKNOWN_VARIABLE } from './address-map'

describe('AddressMap', () => {
  it('resolves globals by range and leaves the rest unknown', () => {
    const m = new AddressMap()
    m.setGlobals([{ start: 0x2000, end: 0x3000, variable: 2 }, { start: 0x1000, end: 0x1800, variable: 1 }])
    expect(m.resolve(0x1000)).toBe(1)
    expect(m.resolve(0x17ff)).toBe(1)
    expect(m.resolve(0x1800)).toBe(UNKNOWN_VARIABLE)
    expect(m.resolve(0x2abc)).toBe(2)
    expect(m.resolve(0x3000)).toBe(UNKNOWN_VARIABLE)
  })

  it('attributes reused heap memory to the block allocated there last', () => {
    const m = new AddressMap()
    m.alloc(0x5000, 64, 10)
    expect(m.resolve(0x5020)).toBe(10)
    m.free(0x5000)
    expect(m.resolve(0x5020)).toBe(UNKNOWN_VARIABLE)
    m.alloc(0x5000, 32, 11)
    expect(m.resolve(0x5010)).toBe(11)
    expect(m.resolve(0x5020)).toBe(UNKNOWN_VARIABLE)
    // realloc in place to a larger block: the old range is replaced.
    m.alloc(0x5000, 128, 12)
    expect(m.resolve(0x5010)).toBe(12)
    expect(m.resolve(0x5070)).toBe(12)
  })

  it('finds locals of the innermost frames and pops a frame at its return', () => {
    const m = new AddressMap()
    m.setGlobals([{ start: 0x1000, end: 0x2000, variable: 1 }])
    const cfaMain = 0x7000
    m.enterFrame(cfaMain, [{ offset: -64, size: 32, variable: 20 }])
    const cfaCallee = 0x6f00
    m.enterFrame(cfaCallee, [{ offset: -528, size: 512, variable: 21 }])
    expect(m.resolve(cfaCallee - 528)).toBe(21)
    expect(m.resolve(cfaCallee - 17)).toBe(21)
    expect(m.resolve(cfaMain - 64)).toBe(20)
    expect(m.resolve(0x1008)).toBe(1) // through a pointer parameter: the global it points to
    m.maybeReturn(cfaCallee - 8, 8)
    expect(m.depth).toBe(1)
    expect(m.resolve(cfaCallee - 528)).toBe(UNKNOWN_VARIABLE)
    // A new call whose CFA is at or above a stale frame's drops it.
    m.enterFrame(cfaMain + 0x100, [])
    expect(m.depth).toBe(1)
  })
})

describe('AddressMap: a frame stack per thread', () => {
  // Thread 1's stack is above thread 2's, as two threads' stacks are mapped.
  const local = (variable: number) => [{ offset: -64, size: 32, variable }]

  it("one thread's return does not pop another thread's frames", () => {
    const map = new AddressMap()
    map.setThread(1)
    map.enterFrame(0x7000_0000, local(1))
    map.setThread(2)
    map.enterFrame(0x5000_0000, local(2))
    map.setThread(1)
    map.leaveTo(0x7000_0008)
    expect(map.resolve(0x7000_0000 - 64)).toBe(UNKNOWN_VARIABLE)
    map.setThread(2)
    expect(map.resolve(0x5000_0000 - 64)).toBe(2)
    expect(map.depth).toBe(1)
  })

  it("finds another thread's local reached through a pointer", () => {
    const map = new AddressMap()
    map.setThread(1)
    map.enterFrame(0x7000_0000, local(1))
    map.setThread(2)
    expect(map.resolve(0x7000_0000 - 40)).toBe(1)
  })
})

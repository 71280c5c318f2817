import { describe, expect, it } from 'vitest'
import { AddressMap, CHANGE_LOG, FrameTable, LocalTable, MapState, UNKNOWN_VARIABLE, frameLayout } from './address-map'

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

describe('AddressMap: frame layouts computed once per function', () => {
  type Local = { offset: number; size: number; variable: number }
  // Two functions of as many locals at different offsets: a layout reused for the wrong one shows.
  const f: Local[] = [{ offset: -24, size: 8, variable: 1 }, { offset: -48, size: 16, variable: 2 }]
  const g: Local[] = [{ offset: -40, size: 4, variable: 3 }, { offset: -16, size: 8, variable: 4 }]

  /** The current thread's frames and locals as the native loop reads them, and the last change's span. */
  function tables(map: AddressMap) {
    const s = map.spans()
    const depth = s.state[MapState.framesDepth]!
    const frames: Array<{ low: number; high: number; ownLow: number; ownHigh: number; locals: number[][] }> = []
    for (let d = 0; d < depth; d++) {
      const row = (k: number) => s.frames[d * FrameTable.fields + k]!
      const locals: number[][] = []
      for (let i = 0; i < row(FrameTable.count); i++) {
        const at = (row(FrameTable.first) + i) * LocalTable.fields
        locals.push([s.locals[at + LocalTable.start]!, s.locals[at + LocalTable.end]!, s.locals[at + LocalTable.variable]!])
      }
      frames.push({ low: row(FrameTable.low), high: row(FrameTable.high), ownLow: row(FrameTable.ownLow), ownHigh: row(FrameTable.ownHigh), locals })
    }
    const e = s.epoch % CHANGE_LOG
    return { frames, change: [s.changeLow[e]!, s.changeHigh[e]!], low: s.state[MapState.framesLow]!, high: s.state[MapState.framesHigh]! }
  }

  /** A frame's row as it is computed from scratch: its locals placed at the CFA, sorted by start. */
  function row(cfa: number, locals: Local[], below?: { low: number; high: number }) {
    const placed = locals.map((l) => [cfa + l.offset, cfa + l.offset + l.size, l.variable]).sort((a, b) => a[0]! - b[0]!)
    const ownLow = Math.min(...placed.map((r) => r[0]!))
    const ownHigh = Math.max(...placed.map((r) => r[1]!))
    return { low: below ? Math.min(below.low, ownLow) : ownLow, high: below ? Math.max(below.high, ownHigh) : ownHigh, ownLow, ownHigh, locals: placed }
  }

  it('gives each function its own locals, at each call, however often it is entered', () => {
    const map = new AddressMap()
    const cfa = 0x7000_0000
    map.enterFrame(cfa, f)
    expect(tables(map).frames).toEqual([row(cfa, f)])
    // g at the same CFA: f's frame has returned; g's locals, not f's, in its place.
    map.enterFrame(cfa, g)
    expect(tables(map).frames).toEqual([row(cfa, g)])
    expect(tables(map).change).toEqual([cfa - 48, cfa - 8]) // f's locals and g's
    expect(map.resolve(cfa - 40)).toBe(3)
    expect(map.resolve(cfa - 48)).toBe(UNKNOWN_VARIABLE)
    map.leaveTo(cfa)
    // f again, at another CFA: its layout, placed there.
    map.enterFrame(cfa - 0x100, f)
    expect(tables(map).frames).toEqual([row(cfa - 0x100, f)])
    expect(map.resolve(cfa - 0x100 - 48)).toBe(2)
  })

  it('places a recursion level by level, and takes a layout as well as its locals', () => {
    const map = new AddressMap()
    const cfas = [0x7000_0000, 0x6fff_ff00, 0x6fff_fe00, 0x6fff_fd00]
    const expected: Array<ReturnType<typeof row>> = []
    for (const [k, cfa] of cfas.entries()) {
      map.enterFrame(cfa, k % 2 === 0 ? f : frameLayout(f))
      expected.push(row(cfa, f, expected[expected.length - 1]))
      expect(tables(map).frames).toEqual(expected)
      expect(tables(map).change).toEqual([cfa - 48, cfa - 16])
    }
    expect(map.resolve(cfas[2]! - 20)).toBe(1)
    // The innermost level returns (its return address read): its own locals changed.
    map.maybeReturn(cfas[3]! - 8, 8)
    expect(tables(map).frames).toEqual(expected.slice(0, 3))
    expect(tables(map).change).toEqual([cfas[3]! - 48, cfas[3]! - 16])
    expect(tables(map)).toMatchObject({ low: expected[2]!.low, high: expected[2]!.high })
  })

  it('pops several frames at once (a longjmp) with the span of every one', () => {
    const map = new AddressMap()
    const cfas = [0x7000_0000, 0x6fff_ff00, 0x6fff_fe00, 0x6fff_fd00, 0x6fff_fc00]
    cfas.forEach((cfa, k) => map.enterFrame(cfa, k % 2 === 0 ? f : g))
    map.leaveTo(cfas[1]!)
    const outer = row(cfas[0]!, f)
    expect(tables(map).frames).toEqual([outer])
    // Frames 1..4: from the lowest local (frame 4's, f's at -48) to the highest end (frame 1's, g's at -8).
    expect(tables(map).change).toEqual([cfas[4]! - 48, cfas[1]! - 8])
    // Re-entered past the popped frames (a new call at a CFA above the innermost pops it too).
    map.enterFrame(cfas[0]! + 0x100, g)
    expect(tables(map).frames).toEqual([row(cfas[0]! + 0x100, g)])
    expect(tables(map).change).toEqual([cfas[0]! - 48, cfas[0]! + 0x100 - 8])
  })

  it('keeps an empty frame empty', () => {
    const map = new AddressMap()
    map.enterFrame(0x7000_0000, [])
    expect(tables(map).frames).toEqual([{ low: Infinity, high: -Infinity, ownLow: Infinity, ownHigh: -Infinity, locals: [] }])
    map.enterFrame(0x6fff_ff00, g)
    expect(tables(map).frames[1]).toEqual(row(0x6fff_ff00, g, { low: Infinity, high: -Infinity }))
  })
})

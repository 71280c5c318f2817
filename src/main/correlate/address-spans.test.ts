import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AddressMap, MapState, UNKNOWN_VARIABLE, type FrameLocal, type Range } from './address-map'

/**
 * resolveAt (the per-point spans) against a map without them: every access resolves the same
 * through any order of globals, blocks coming and going, frames entered and left in several
 * threads. Stacks, heap and globals lie in separate address bands, as in a process.
 */
const GLOBALS = 0x1000
const HEAP = 0x100000
const STACK = 0x7000000

type Op =
  | { op: 'globals'; ranges: Array<[number, number]> }
  | { op: 'alloc'; at: number; size: number }
  | { op: 'free'; at: number }
  | { op: 'enter'; thread: number; cfa: number; locals: Array<[number, number]> }
  | { op: 'leave'; thread: number; sp: number }
  | { op: 'access'; thread: number; point: number; address: number }
  /** An access at (or a byte off) a range's edge, picked among the edges made so far. */
  | { op: 'edge'; thread: number; point: number; pick: number; delta: number }

const band = (base: number) => fc.integer({ min: 0, max: 4096 }).map((o) => base + o)
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 1, arbitrary: fc.array(fc.tuple(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 1, max: 300 })), { maxLength: 6 }).map((ranges) => ({ op: 'globals' as const, ranges })) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('alloc' as const), at: band(HEAP), size: fc.integer({ min: 0, max: 600 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('free' as const), at: band(HEAP) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('enter' as const),
      thread: fc.integer({ min: 0, max: 2 }),
      cfa: band(STACK),
      locals: fc.array(fc.tuple(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 512 })), { maxLength: 4 })
    })
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('leave' as const), thread: fc.integer({ min: 0, max: 2 }), sp: band(STACK) }) },
  {
    weight: 6,
    arbitrary: fc.record({ op: fc.constant('edge' as const), thread: fc.integer({ min: 0, max: 2 }), point: fc.integer({ min: 0, max: 2 }), pick: fc.nat(), delta: fc.integer({ min: -1, max: 1 }) })
  },
  {
    weight: 12,
    arbitrary: fc.record({
      op: fc.constant('access' as const),
      thread: fc.integer({ min: 0, max: 2 }),
      point: fc.integer({ min: 0, max: 2 }),
      // Mostly where ranges are (a point walks near them), sometimes anywhere.
      address: fc.oneof(band(GLOBALS), band(HEAP), fc.integer({ min: STACK - 2048, max: STACK + 4096 }), fc.integer({ min: 0, max: 2 ** 40 }))
    })
  }
)

/** Sorted, apart globals (the ELF's data symbols do not overlap). */
function globals(ranges: Array<[number, number]>): Range[] {
  const out: Range[] = []
  let at = GLOBALS
  ranges.forEach(([gap, size], i) => {
    out.push({ start: at + gap, end: at + gap + size, variable: 100 + i })
    at += gap + size
  })
  return out
}

/** A frame's locals below its CFA, apart. */
function locals(list: Array<[number, number]>, variable: number): FrameLocal[] {
  const out: FrameLocal[] = []
  let below = 0
  list.forEach(([gap, size], i) => {
    below += gap + size
    out.push({ offset: -below, size, variable: variable + i })
  })
  return out
}

function apply(map: AddressMap, o: Op, step: number): void {
  if (o.op === 'globals') map.setGlobals(globals(o.ranges))
  else if (o.op === 'alloc') map.alloc(o.at, o.size, 1000 + step)
  else if (o.op === 'free') map.free(o.at)
  else if (o.op === 'enter') (map.setThread(o.thread), map.enterFrame(o.cfa, locals(o.locals, 2000 + step * 8)))
  else if (o.op === 'leave') (map.setThread(o.thread), map.leaveTo(o.sp))
}

/** Plays the ops: changes to `change`; accesses to `access`, an edge access at an edge made so far. */
function replay(ops: Op[], change: (o: Op, step: number) => void, access: (thread: number, point: number, address: number) => void): void {
  const made: number[] = []
  ops.forEach((o, step) => {
    if (o.op === 'access') access(o.thread, o.point, o.address)
    else if (o.op === 'edge') access(o.thread, o.point, made.length > 0 ? made[o.pick % made.length]! + o.delta : STACK)
    else {
      change(o, step)
      made.push(...edges(o))
    }
  })
}

/** Every range start and end the op makes (where answers change: the edges worth probing). */
function edges(o: Op): number[] {
  if (o.op === 'globals') return globals(o.ranges).flatMap((r) => [r.start, r.end])
  if (o.op === 'alloc') return [o.at, o.at + Math.max(o.size, 1)]
  if (o.op === 'enter') return locals(o.locals, 0).flatMap((l) => [o.cfa + l.offset, o.cfa + l.offset + l.size])
  return []
}

/**
 * The map's ranges by brute force: every range kept in a list, as blocks come and go and frames
 * are entered and left per thread. An address one range holds must get that range's variable,
 * one no range holds `unknown`. Where ranges overlap (the ops let two threads' frames, or a
 * frame and one it called, share addresses, which a real stack never does; nested globals do)
 * the map may answer with any of them: which one depends on the order of earlier searches (its
 * last answer, a point's span), by design.
 */
class NaiveMap {
  private globals: Range[] = []
  private heap: Range[] = []
  private readonly stacks = new Map<number, Array<{ cfa: number; ranges: Range[] }>>()

  apply(o: Op, step: number): void {
    if (o.op === 'globals') this.globals = globals(o.ranges)
    else if (o.op === 'alloc') {
      const end = o.at + Math.max(o.size, 1)
      this.heap = this.heap.filter((r) => r.end <= o.at || r.start >= end)
      this.heap.push({ start: o.at, end, variable: 1000 + step })
    } else if (o.op === 'free') this.heap = this.heap.filter((r) => r.start !== o.at)
    else if (o.op === 'enter' || o.op === 'leave') {
      if (!this.stacks.has(o.thread)) this.stacks.set(o.thread, [])
      const frames = this.stacks.get(o.thread)!
      const cfa = o.op === 'enter' ? o.cfa : o.sp
      while (frames.length > 0 && frames[frames.length - 1]!.cfa <= cfa) frames.pop()
      if (o.op === 'enter') frames.push({ cfa, ranges: locals(o.locals, 2000 + step * 8).map((l) => ({ start: cfa + l.offset, end: cfa + l.offset + l.size, variable: l.variable })) })
    }
  }

  /** The hull of a thread's frames' locals ([Infinity, -Infinity] when it has none), and the heap's block count. */
  framesHull(thread: number): [number, number] {
    const ranges = (this.stacks.get(thread) ?? []).flatMap((f) => f.ranges)
    return [Math.min(Infinity, ...ranges.map((r) => r.start)), Math.max(-Infinity, ...ranges.map((r) => r.end))]
  }

  /** The globals' hull ([Infinity, -Infinity] when there are none). */
  globalsHull(): [number, number] {
    return [Math.min(Infinity, ...this.globals.map((r) => r.start)), Math.max(-Infinity, ...this.globals.map((r) => r.end))]
  }

  /** Whether a thread other than `thread` has frames. */
  otherThreadsWithFrames(thread: number): boolean {
    return [...this.stacks].some(([t, f]) => t !== thread && f.length > 0)
  }

  get blocks(): number {
    return this.heap.length
  }

  /** Whether [start, end) -> variable is one of the ranges. */
  has(start: number, end: number, variable: number): boolean {
    const frames = [...this.stacks.values()].flatMap((stack) => stack.flatMap((f) => f.ranges))
    return [...frames, ...this.heap, ...this.globals].some((r) => r.start === start && r.end === end && r.variable === variable)
  }

  /** The variables of every range holding the address. */
  holders(address: number): number[] {
    const holding = (ranges: Range[]) => ranges.filter((r) => address >= r.start && address < r.end).map((r) => r.variable)
    const frames = [...this.stacks.values()].flatMap((stack) => stack.flatMap((f) => f.ranges))
    return [...holding(frames), ...holding(this.heap), ...holding(this.globals)]
  }
}

describe('AddressMap against its rules by brute force', () => {
  it('answers every access, with and without spans, with a range that holds it', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const map = new AddressMap()
        const naive = new NaiveMap()
        replay(
          ops,
          (o, step) => (apply(map, o, step), naive.apply(o, step)),
          (thread, point, address) => {
            map.setThread(thread)
            const holders = naive.holders(address)
            const expected = holders.length === 0 ? [UNKNOWN_VARIABLE] : holders
            expect(expected).toContain(map.resolveAt(point, address))
            expect(expected).toContain(map.resolve(address))
          }
        )
      }),
      { numRuns: 1000 }
    )
  })
})

describe("AddressMap's state for the native loop (MapState)", () => {
  it("holds the current thread's frames' hull, the heap's slot count, and a last answer that is one of the ranges", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const map = new AddressMap()
        const naive = new NaiveMap()
        const state = map.spans().state
        const expectState = (thread: number) => {
          expect(state[MapState.thread]).toBe(thread)
          expect([state[MapState.framesLow], state[MapState.framesHigh]]).toEqual(naive.framesHull(thread))
          expect([state[MapState.globalsLow], state[MapState.globalsHigh]]).toEqual(naive.globalsHull())
          expect(state[MapState.otherFrames]).toBe(naive.otherThreadsWithFrames(thread) ? 1 : 0)
          // The slots the native loop searches: the blocks, and freed ones' tombstones among them.
          expect(map.heapBlocks).toBe(naive.blocks)
          expect(state[MapState.heapCount]).toBeGreaterThanOrEqual(naive.blocks)
          const last = [state[MapState.lastStart]!, state[MapState.lastEnd]!, state[MapState.lastVariable]!] as const
          if (last[0] < last[1]) expect(naive.has(...last)).toBe(true)
        }
        let thread = 0
        replay(
          ops,
          (o, step) => {
            apply(map, o, step)
            naive.apply(o, step)
            if (o.op === 'enter' || o.op === 'leave') thread = o.thread
            expectState(thread)
          },
          (t, point, address) => {
            map.setThread((thread = t))
            map.resolveAt(point, address)
            expectState(thread)
          }
        )
      }),
      { numRuns: 500 }
    )
  })
})

describe('AddressMap spans per access point', () => {
  it('resolve the same as without them, through any changes to the ranges', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const plain = new AddressMap()
        const spans = new AddressMap()
        replay(
          ops,
          (o, step) => (apply(plain, o, step), apply(spans, o, step)),
          (thread, point, address) => {
            plain.setThread(thread)
            spans.setThread(thread)
            expect(spans.resolveAt(point, address)).toBe(plain.resolve(address))
          }
        )
      }),
      { numRuns: 1000 }
    )
  })

  it('does not carry a gap over a global nested in another', () => {
    const m = new AddressMap()
    m.setGlobals([
      { start: 0x1000, end: 0x2000, variable: 1 },
      { start: 0x1100, end: 0x1200, variable: 2 },
      { start: 0x3000, end: 0x3100, variable: 3 }
    ])
    expect(m.resolveAt(0, 0x2800)).toBe(UNKNOWN_VARIABLE)
    expect(m.resolveAt(0, 0x2fff)).toBe(UNKNOWN_VARIABLE)
    expect(m.resolveAt(0, 0x3000)).toBe(3)
    // The gap above the outer global starts at its end, not at the inner one's.
    expect(m.resolveAt(0, 0x2800)).toBe(UNKNOWN_VARIABLE)
    expect(m.resolveAt(0, 0x1150)).toBe(2)
    for (const a of [0x1fff, 0x1ff8, 0x1200, 0x2000]) expect(m.resolveAt(1, a)).toBe(m.resolve(a))
  })

  it('ends a gap at the locals of every frame around it', () => {
    const m = new AddressMap()
    m.enterFrame(0x7000, [{ offset: -64, size: 16, variable: 5 }])
    m.enterFrame(0x6000, [{ offset: -32, size: 8, variable: 6 }])
    expect(m.resolveAt(0, 0x6f00)).toBe(UNKNOWN_VARIABLE)
    expect(m.resolveAt(0, 0x6fc0)).toBe(5)
    expect(m.resolveAt(1, 0x6fe0)).toBe(UNKNOWN_VARIABLE)
    expect(m.resolveAt(1, 0x6fc8)).toBe(5)
    expect(m.resolveAt(1, 0x6000 - 32)).toBe(6)
  })

  it("keeps a span through changes beside it, and drops it for one that touches only its last byte", () => {
    const m = new AddressMap()
    m.alloc(0x4000, 0x100, 1)
    m.alloc(0x6000, 0x100, 2)
    expect(m.resolveAt(0, 0x5000)).toBe(UNKNOWN_VARIABLE) // the gap [0x4100, 0x6000)
    expect(m.resolveAt(1, 0x4010)).toBe(1)
    m.free(0x6000) // beside the gap, and elsewhere for point 1
    m.alloc(0x5fff, 1, 3) // the gap's last byte
    expect(m.resolveAt(0, 0x5fff)).toBe(3)
    expect(m.resolveAt(1, 0x40ff)).toBe(1)
  })

  it('forgets a gap once a block is allocated in it', () => {
    const m = new AddressMap()
    expect(m.resolveAt(0, 0x5000)).toBe(UNKNOWN_VARIABLE)
    m.alloc(0x5100, 64, 7)
    expect(m.resolveAt(0, 0x5110)).toBe(7)
    m.free(0x5100)
    expect(m.resolveAt(0, 0x5110)).toBe(UNKNOWN_VARIABLE)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AddressMap, UNKNOWN_VARIABLE, type FrameLocal, type Range } from './address-map'

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

describe('AddressMap spans per access point', () => {
  it('resolve the same as without them, through any changes to the ranges', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const plain = new AddressMap()
        const spans = new AddressMap()
        ops.forEach((o, step) => {
          if (o.op !== 'access') {
            apply(plain, o, step)
            apply(spans, o, step)
            return
          }
          plain.setThread(o.thread)
          spans.setThread(o.thread)
          expect(spans.resolveAt(o.point, o.address)).toBe(plain.resolve(o.address))
        })
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

  it('forgets a gap once a block is allocated in it', () => {
    const m = new AddressMap()
    expect(m.resolveAt(0, 0x5000)).toBe(UNKNOWN_VARIABLE)
    m.alloc(0x5100, 64, 7)
    expect(m.resolveAt(0, 0x5110)).toBe(7)
    m.free(0x5100)
    expect(m.resolveAt(0, 0x5110)).toBe(UNKNOWN_VARIABLE)
  })
})

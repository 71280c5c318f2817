import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { loopOrderArb } from '../testing/trace-arbitrary'
import { FOLD_MAX_BODY, LoopFolder, unfold } from './fold'

/** Folds `order` as one chunk; returns the folded symbols and the markers. */
function fold(order: number[], base: number, folder?: LoopFolder, out: number[] = []) {
  const f = folder ?? new LoopFolder((s) => out.push(s))
  f.reset(base)
  for (const p of order) f.add(p)
  f.flush()
  return { folded: out, markers: f.markers }
}

function roundTrip(order: number[], base: number): number[] {
  const { folded, markers } = fold(order, base)
  expect(folded.length).toBeLessThanOrEqual(order.length)
  expect(Array.from(unfold(Uint32Array.from(folded), folded.length, base, markers, order.length))).toEqual(order)
  return folded
}

describe('loop folding (prsd-sequitur-v2)', () => {
  it('unfolds to the same order and never lengthens it, on loop programs (fast-check)', () => {
    fc.assert(fc.property(loopOrderArb(), ({ order, pointCount }) => void roundTrip(order, pointCount)), { numRuns: 400 })
  })

  it('unfolds random orders over small alphabets (fast-check)', () => {
    fc.assert(fc.property(fc.array(fc.nat({ max: 3 }), { maxLength: 500 }), (order) => void roundTrip(order, 4)), { numRuns: 300 })
  })

  it('folds a loop to its body and one marker, a three-deep nest to a few symbols', () => {
    const body = [0, 1, 2]
    const loop = Array.from({ length: 3000 }, (_, i) => body[i % 3]!)
    expect(roundTrip(loop, 3)).toEqual([0, 1, 2, 3])
    const nest: number[] = []
    for (let i = 0; i < 20; i++) {
      nest.push(5)
      for (let j = 0; j < 30; j++) {
        nest.push(4)
        for (let k = 0; k < 40; k++) nest.push(0, 1, 2)
      }
    }
    expect(roundTrip(nest, 6).length).toBeLessThanOrEqual(12)
  })

  it('leaves an order without repeats, and bodies longer than FOLD_MAX_BODY, as they are', () => {
    const distinct = Array.from({ length: 200 }, (_, i) => i)
    expect(roundTrip(distinct, 200)).toEqual(distinct)
    const long = Array.from({ length: 10 * (FOLD_MAX_BODY + 1) }, (_, i) => i % (FOLD_MAX_BODY + 1))
    expect(roundTrip(long, FOLD_MAX_BODY + 1)).toEqual(long)
  })

  it('starts every chunk afresh (markers numbered from 0 again, nothing carried over)', () => {
    const out: number[] = []
    const folder = new LoopFolder((s) => out.push(s))
    const loop = Array.from({ length: 300 }, (_, i) => i % 2)
    fold(loop, 2, folder, out)
    const first = out.splice(0)
    fold(loop, 2, folder, out)
    expect(out).toEqual(first)
  })

  it('rejects a marker without a body and repeats past the count', () => {
    const markers = { level: [0], k: [2], r: [3] }
    expect(() => unfold(Uint32Array.of(0, 2), 2, 2, markers, 6)).toThrow(/no body/)
    expect(() => unfold(Uint32Array.of(0, 1, 2), 3, 2, markers, 5)).toThrow(/more accesses than it declares/)
    expect(() => unfold(Uint32Array.of(0, 1, 2), 3, 2, markers, 7)).toThrow(/expands to 6 accesses, expected 7/)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { loopOrderArb } from '../testing/trace-arbitrary'
import { CHAIN_LEVEL, CHAIN_MIN_RUN, SuccessorChains, unchain } from './chain'
import { LoopFolder, unfold } from './fold'

/** Folds and chains `order` as one chunk, as prsd-sequitur-v3 does; returns the tokens and markers. */
function encode(order: number[], base: number, state?: { folder: LoopFolder; chains: SuccessorChains; out: number[] }) {
  const out = state?.out ?? []
  let chains: SuccessorChains
  const folder = state?.folder ?? new LoopFolder((s) => chains.add(s))
  chains = state?.chains ?? new SuccessorChains((length) => folder.markerSymbol(CHAIN_LEVEL, 1, length), (s) => out.push(s))
  folder.reset(base)
  chains.reset()
  for (const p of order) folder.add(p)
  folder.flush()
  chains.flush()
  return { tokens: out, markers: folder.markers, state: { folder, chains, out } }
}

function roundTrip(order: number[], base: number): number[] {
  const { tokens, markers } = encode(order, base)
  expect(tokens.length).toBeLessThanOrEqual(order.length)
  const { symbols, length } = unchain(Uint32Array.from(tokens), tokens.length, base, markers, base, order.length)
  expect(Array.from(unfold(symbols, length, base, markers, order.length))).toEqual(order)
  return tokens
}

describe('successor chains (prsd-sequitur-v3)', () => {
  it('give back the order and never lengthen it, on loop programs and random orders (fast-check)', () => {
    fc.assert(fc.property(loopOrderArb(), ({ order, pointCount }) => void roundTrip(order, pointCount)), { numRuns: 300 })
    fc.assert(fc.property(fc.array(fc.nat({ max: 5 }), { maxLength: 500 }), (order) => void roundTrip(order, 6)), { numRuns: 300 })
  })

  it('turn a path taken again into its branches: one marker per run of first successors', () => {
    // A straight path 0..9 taken three times, entered from 20, 21 and 20: after the first
    // time only the entries go on, each followed by a chain of the nine predicted points.
    const path = Array.from({ length: 10 }, (_, i) => i)
    const order = [20, ...path, 21, ...path, 20, ...path]
    const tokens = roundTrip(order, 22)
    const { markers } = encode(order, 22)
    const chain = (length: number): number => 22 + markers.r.indexOf(length)
    expect(tokens).toEqual([20, ...path, 21, 0, chain(9), 20, chain(10)])
  })

  it('predict by the first successor, which a later branch does not move', () => {
    // 0 is followed by 1, then by 9, then by 1 again: the third time is still predicted.
    const path = [0, 1, 2, 3, 4, 5, 6, 7]
    const order = [20, ...path, 21, 0, 9, 20, ...path]
    const { tokens, markers } = encode(order, 22)
    expect(markers).toEqual({ level: [CHAIN_LEVEL], k: [1], r: [8] })
    expect(tokens).toEqual([20, ...path, 21, 0, 9, 20, 22])
  })

  it(`keep runs shorter than ${CHAIN_MIN_RUN} as their symbols`, () => {
    const short = Array.from({ length: CHAIN_MIN_RUN - 1 }, (_, i) => i)
    const order = [30, 40, ...short, 31, 40, ...short]
    expect(roundTrip(order, 41)).toEqual(order)
    expect(encode(order, 41).markers.level).toEqual([])
  })

  it('start every chunk afresh (nothing predicted from the chunk before)', () => {
    const order = [4, 5, 6, 7, 4, 5, 6, 7, 1, 4, 5, 6, 7]
    const first = encode(order, 8)
    const tokens = first.tokens.slice()
    const again = encode(order, 8, first.state)
    expect(again.tokens.slice(tokens.length)).toEqual(tokens)
  })

  it('reject a chain with nothing before it, after a symbol with no successor, or past the count', () => {
    const markers = { level: [CHAIN_LEVEL], k: [1], r: [2] }
    expect(() => unchain(Uint32Array.of(3), 1, 3, markers, 3, 5)).toThrow(/no successor/)
    expect(() => unchain(Uint32Array.of(0, 3), 2, 3, markers, 3, 5)).toThrow(/no successor/)
    expect(() => unchain(Uint32Array.of(0, 1, 0, 3), 4, 3, markers, 3, 4)).toThrow(/more accesses than it declares/)
    expect(Array.from(unchain(Uint32Array.of(0, 1, 0, 3), 4, 3, markers, 3, 5).symbols)).toEqual([0, 1, 0, 1, 0])
    expect(() => unchain(Uint32Array.of(4), 1, 5, markers, 3, 5)).toThrow(/access point 4 of 3/)
  })
})

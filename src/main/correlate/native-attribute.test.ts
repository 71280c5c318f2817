import { describe, expect, it } from 'vitest'
import { NativeAttribution, type Runs } from './native-attribute'
import type { Spans } from './address-map'

const loop = new NativeAttribution()
const countAnswered = (points: Uint32Array, addresses: Float64Array, from: number, to: number, spans: Spans, kindOf: Uint8Array, runs: Runs) => loop.countAnswered(points, addresses, from, to, spans, kindOf, runs)

/** Two points with spans [0x1000, 0x2000) -> variable 3 and [0x8000, 0x9000) -> variable 0 (a gap), both current. */
function state() {
  const spans = { epoch: 5, epochs: Float64Array.of(5, 5), low: Float64Array.of(0x1000, 0x8000), high: Float64Array.of(0x2000, 0x9000), variable: Int32Array.of(3, 0) }
  const runs = { variable: Int32Array.of(3, 0), kind: Uint8Array.of(1, 2), count: Float64Array.of(10, 0) }
  return { spans, runs, kindOf: Uint8Array.of(1, 2) }
}

describe('the native attribution loop', () => {
  it('counts the accesses whose span and run go on, and stops at the first that does not', () => {
    const { spans, runs, kindOf } = state()
    const points = Uint32Array.of(0, 1, 0, 0, 1, 0)
    const addresses = Float64Array.of(0x1000, 0x8ff8, 0x1ff8, 0x2000 /* past the span */, 0x8000, 0x1000)
    expect(countAnswered(points, addresses, 0, 6, spans, kindOf, runs)).toBe(3)
    expect([...runs.count]).toEqual([12, 1])
    // Going on from the one after it: the rest are answered.
    expect(countAnswered(points, addresses, 4, 6, spans, kindOf, runs)).toBe(6)
    expect([...runs.count]).toEqual([13, 2])
  })

  it('leaves to the correlator a stale span, another run, a new point, and NaN', () => {
    const cases: Array<(s: ReturnType<typeof state>) => void> = [
      (s) => (s.spans.epoch = 6), // the ranges changed since
      (s) => (s.runs.variable[0] = 4), // the point's run is of another variable
      (s) => (s.runs.kind[0] = 2), // or of another kind
      (s) => (s.runs.variable = new Int32Array(0)) // a point the runs do not have yet
    ]
    for (const change of cases) {
      const s = state()
      change(s)
      expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x1800), 0, 1, s.spans, s.kindOf, s.runs)).toBe(0)
    }
    const s = state()
    expect(countAnswered(Uint32Array.of(0, 2), Float64Array.of(NaN, 0x1800), 0, 2, s.spans, s.kindOf, s.runs)).toBe(0)
    expect(countAnswered(Uint32Array.of(0, 2), Float64Array.of(0x1800, 0x1800), 0, 2, s.spans, s.kindOf, s.runs)).toBe(1)
  })

  it('binds its arrays again when one is replaced, and reads the new one', () => {
    const fresh = new NativeAttribution()
    const { spans, runs, kindOf } = state()
    const points = Uint32Array.of(0, 0)
    expect(fresh.countAnswered(points, Float64Array.of(0x1000, 0x1008), 0, 2, spans, kindOf, runs)).toBe(2)
    // The table grown (as grownFor makes a new array): the old one must no longer be read.
    spans.high = Float64Array.of(0x1004, 0x9000)
    expect(fresh.countAnswered(points, Float64Array.of(0x1000, 0x1008), 0, 2, spans, kindOf, runs)).toBe(1)
    runs.count = Float64Array.of(100, 0)
    expect(fresh.countAnswered(points, Float64Array.of(0x1000, 0x1000), 0, 2, spans, kindOf, runs)).toBe(2)
    expect([...runs.count]).toEqual([102, 0])
  })

  it('refuses a range outside the batch with one clear message', () => {
    const { spans, runs, kindOf } = state()
    expect(() => countAnswered(Uint32Array.of(0), Float64Array.of(0x1000), 0, 2, spans, kindOf, runs)).toThrow(/within the batch/)
  })
})

/**
 * The native stream detector (production) against the TypeScript detector and its reference
 * model: identical statistics per group on random and adversarial traces, with the accesses
 * of several groups interleaved as the functions of a trace are.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { NativeStreamDetectors } from './native-streams'
import { StreamDetectorReference } from './reference/stream-detector-reference'
import { interleave, referenceArb, stridedArb } from './stream-arbitraries'
import { StreamDetector } from './stream-detector'

/** Parts interleaved round-robin; each part's accesses come from one point. */
const trace = fc
  .array(fc.tuple(fc.oneof(referenceArb.map((a) => [a]), stridedArb), fc.integer({ min: 0, max: 5 })), { maxLength: 40 })
  .map((parts) => interleave(parts.map(([addresses, point]) => addresses.map((address) => ({ address, point })))))

describe('native stream detector', () => {
  it('gives the TypeScript detector\'s and the reference model\'s statistics, per group', () => {
    fc.assert(
      fc.property(trace, fc.constantFrom(3, 4, 7, 100), fc.array(fc.constantFrom(1, 2, 4, 8), { minLength: 6, maxLength: 6 }), fc.integer({ min: 1, max: 3 }), (refs, window, sizeOfPoint, groups) => {
        const groupOfPoint = Int32Array.from({ length: 6 }, (_, p) => p % groups)
        const native = new NativeStreamDetectors(groupOfPoint, groups, window)
        const ts = Array.from({ length: groups }, () => new StreamDetector(window))
        const model = Array.from({ length: groups }, () => new StreamDetectorReference(window))
        // Two batches: the detectors carry their state across add() calls.
        const half = refs.length >> 1
        for (const part of [refs.slice(0, half), refs.slice(half)]) {
          native.add(part.length, Uint32Array.from(part, (r) => r.point), Float64Array.from(part, (r) => r.address), Uint16Array.from(part, (r) => sizeOfPoint[r.point]!))
          for (const r of part) {
            ts[r.point % groups]!.add(r.address, sizeOfPoint[r.point]!)
            model[r.point % groups]!.add(r.address, sizeOfPoint[r.point]!)
          }
        }
        const got = native.finish()
        expect(got).toEqual(ts.map((d) => d.finish()))
        expect(got).toEqual(model.map((d) => d.finish()))
      }),
      { numRuns: 300 }
    )
  })

  it('refuses a point without a group, in one line', () => {
    const d = new NativeStreamDetectors(Int32Array.from([0]), 1)
    expect(() => d.add(1, Uint32Array.from([1]), Float64Array.from([8]), Uint16Array.from([8]))).toThrow('an access point has no group')
  })
})

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

  it('begins the stream of the nearest candidate that pairs (10 0 20 15 30: stride 15, not 10), and agrees on crowded traces', () => {
    const run = (addresses: number[], window: number) => {
      const native = new NativeStreamDetectors(Int32Array.from([0]), 1, window)
      native.add(addresses.length, new Uint32Array(addresses.length), Float64Array.from(addresses), new Uint16Array(addresses.length).fill(1))
      const model = new StreamDetectorReference(window)
      for (const a of addresses) model.add(a, 1)
      return { native: native.finish()[0]!, model: model.finish() }
    }
    // 30 pairs with 15 (and 0) and with 20 (and 10); 15 is the nearer: the stream 0 15 30 45 60 75.
    const { native, model } = run([10, 0, 20, 15, 30, 45, 60, 75], 100)
    expect(native).toEqual(model)
    expect(native.streams).toBe(1)
    expect(native.meanStride).toBe(15)
    // Few distinct addresses: most references have several candidates that pair.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 15 }).map((a) => a * 8), { maxLength: 400 }), fc.constantFrom(3, 7, 9, 17, 100), (addresses, window) => {
        const { native, model } = run(addresses, window)
        expect(native).toEqual(model)
      }),
      { numRuns: 300 }
    )
  })

  it('grown between batches (new groups and points, sync or on the thread pool) equals detectors made with the final tables', async () => {
    await fc.assert(
      fc.asyncProperty(
        trace,
        fc.constantFrom(3, 7, 100),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 60 }), fc.boolean()), { minLength: 1, maxLength: 8 }),
        async (refs, window, functionOfPoint, cuts) => {
          // Points are numbered, and their functions become groups, in order of first access,
          // as a trace's points are; a batch's points and groups are known before it is added.
          const pointOf = new Map<number, number>()
          const groupOfFunction = new Map<number, number>()
          const finalGroups: number[] = []
          const numbered = refs.map((r) => {
            if (!pointOf.has(r.point)) {
              pointOf.set(r.point, pointOf.size)
              const f = functionOfPoint[r.point]!
              if (!groupOfFunction.has(f)) groupOfFunction.set(f, groupOfFunction.size)
              finalGroups.push(groupOfFunction.get(f)!)
            }
            return { point: pointOf.get(r.point)!, address: r.address, size: 1 << (r.point % 4) }
          })
          const whole = new NativeStreamDetectors(Int32Array.from(finalGroups), groupOfFunction.size, window)
          const grown = new NativeStreamDetectors(new Int32Array(0), 0, window)
          let at = 0
          let known = 0
          for (let c = 0; at < numbered.length; c++) {
            const [length, async] = cuts[c % cuts.length]!
            const part = numbered.slice(at, at + length)
            at += part.length
            const points = Uint32Array.from(part, (r) => r.point)
            const addresses = Float64Array.from(part, (r) => r.address)
            const sizes = Uint16Array.from(part, (r) => r.size)
            whole.add(part.length, points, addresses, sizes)
            known = Math.max(known, ...points.map((p) => p + 1))
            const table = Int32Array.from(finalGroups.slice(0, known))
            grown.grow(table, Math.max(...table) + 1)
            if (async) await grown.addAsync(part.length, points, addresses, sizes)
            else grown.add(part.length, points, addresses, sizes)
          }
          expect(grown.finish()).toEqual(whole.finish())
        }
      ),
      { numRuns: 200 }
    )
  })

  it('refuses other calls while a batch is added on the thread pool, and a point without a group there', async () => {
    const d = new NativeStreamDetectors(Int32Array.from([0]), 1)
    const one = [Uint32Array.from([0]), Float64Array.from([8]), Uint16Array.from([8])] as const
    const running = d.addAsync(1, ...one)
    expect(() => d.add(1, ...one)).toThrow('still being added')
    expect(() => d.grow(Int32Array.from([0, 1]), 2)).toThrow('still being added')
    expect(() => d.finish()).toThrow('still being added')
    await running
    await expect(d.addAsync(1, Uint32Array.from([1]), Float64Array.from([8]), Uint16Array.from([8]))).rejects.toThrow('an access point has no group')
    expect(d.finish()[0]!.references).toBe(1)
  })

  it('refuses a point without a group, in one line', () => {
    const d = new NativeStreamDetectors(Int32Array.from([0]), 1)
    expect(() => d.add(1, Uint32Array.from([1]), Float64Array.from([8]), Uint16Array.from([8]))).toThrow('an access point has no group')
  })
})

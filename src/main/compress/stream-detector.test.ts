import { describe, expect, it } from 'vitest'
import { interleave, referenceArb, stridedArb } from './stream-arbitraries'
import { adviseFromStreams } from './advisor'
import fc from 'fast-check'
import { StreamDetector } from './stream-detector'
import { StreamDetectorReference } from './reference/stream-detector-reference'

function run(addresses: number[], size = 8, window?: number) {
  const d = new StreamDetector(window)
  for (const a of addresses) d.add(a, size)
  return d.finish()
}

describe('Mohan stream detector', () => {
  it('the paper\'s example 100, 211, 100; 100, 212, 100; ... finds <100, stride 0> and <211, stride 1>', () => {
    const refs: number[] = []
    for (let k = 0; k < 6; k++) refs.push(100, 211 + k, 100)
    const s = run(refs, 1)
    expect(s.streams).toBe(2)
    expect(s.scalarStreams).toBe(1)
    // All twelve 100s and the six 211..216 belong to streams.
    expect(s.spatialRegularity).toBe(1)
  })

  it('a column walk over 1000x1000 doubles: 1000 streams of 1000 with stride 8000', () => {
    const refs: number[] = []
    for (let i = 0; i < 50; i++) for (let j = 0; j < 1000; j++) refs.push(j * 8000 + i * 8)
    const s = run(refs)
    expect(s.streams).toBe(50)
    expect(s.meanLength).toBe(1000)
    expect(s.lengthDeviation).toBe(0)
    expect(s.meanStride).toBe(8000)
    expect(s.buckets['128-16384']).toBe(50)
    expect(s.spatialRegularity).toBe(1)
    const advice = adviseFromStreams(s).map((a) => a.optimization)
    expect(advice).toContain('loop interchange / copying, stream remapping')
    expect(advice).not.toContain('scatter/gather using an indirection vector')
  })

  it('interleaved streams are separated; length buckets', () => {
    const refs: number[] = []
    for (let k = 0; k < 20000; k++) refs.push(0x1000 + 4 * k, 0x900000 + 8 * k, 0x500000 + 16 * (k % 40))
    const s = run(refs)
    // Two long streams and 500 streams of 40 (the third walks 40 elements, then restarts).
    expect(s.buckets['>16384']).toBe(2)
    expect(s.buckets['32-128']).toBe(500)
    expect(s.spatialRegularity).toBeGreaterThan(0.99)
    expect(adviseFromStreams(s).map((a) => a.optimization)).toContain('prefetching')
  })

  it('random references are irregular and get the scatter/gather advice', () => {
    let seed = 7
    const refs: number[] = []
    for (let k = 0; k < 20000; k++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      refs.push(0x600000 + 8 * ((seed >>> 4) % (1 << 20)))
    }
    const s = run(refs)
    expect(s.spatialRegularity).toBeLessThan(0.05)
    expect(adviseFromStreams(s)[0]!.optimization).toBe('scatter/gather using an indirection vector')
  })

  it('the window bounds how far apart stream elements may be', () => {
    const refs: number[] = []
    let seed = 99
    for (let k = 0; k < 30; k++) {
      refs.push(8 * k)
      for (let f = 0; f < 150; f++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
        refs.push(2 ** 40 + seed * 4096)
      }
    }
    expect(run(refs, 8, 100).streams).toBe(0)
    expect(run(refs, 8, 400).streams).toBeGreaterThan(0)
  })
})

describe('Mohan stream detector against its reference model', () => {
  // Random and adversarial reference strings: strided runs interleaved, repeats, negative
  // strides, addresses above 2^32 (heap and stack), tiny windows that age streams constantly.
  const trace = fc.array(fc.oneof(referenceArb.map((a) => [a]), stridedArb), { maxLength: 60 }).map(interleave)

  it('gives identical statistics on random and adversarial traces', () => {
    fc.assert(
      fc.property(trace, fc.constantFrom(3, 4, 7, 100), fc.constantFrom(1, 4, 8), (refs, window, size) => {
        const ours = new StreamDetector(window)
        const model = new StreamDetectorReference(window)
        for (const a of refs) {
          ours.add(a, size)
          model.add(a, size)
        }
        expect(ours.finish()).toEqual(model.finish())
      }),
      { numRuns: 300 }
    )
  })
})

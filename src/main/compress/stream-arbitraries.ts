/**
 * fast-check generators of reference strings for the stream detectors' tests: strided runs
 * interleaved, repeats, negative strides, addresses above 2^32 (heap and stack).
 */
import fc from 'fast-check'

/** One address: a small array, a heap-like region, or anywhere below 2^40. */
export const referenceArb = fc.oneof(
  fc.integer({ min: 0, max: 64 }).map((a) => a * 8),
  fc.integer({ min: 0, max: 2 ** 20 }).map((a) => 0x1fff000000 + a * 4),
  fc.integer({ min: 0, max: 2 ** 40 })
)

/** A strided run: start, stride (either sign, or 0), length. */
export const stridedArb = fc
  .tuple(fc.integer({ min: 0, max: 2 ** 44 }), fc.integer({ min: -4096, max: 4096 }), fc.integer({ min: 1, max: 300 }))
  .map(([start, stride, n]) => Array.from({ length: n }, (_, k) => start + k * stride))

/** Parts interleaved round-robin, as loops over several arrays are. */
export function interleave<T>(parts: T[][]): T[] {
  const out: T[] = []
  for (let k = 0; parts.some((p) => k < p.length); k++) for (const p of parts) if (k < p.length) out.push(p[k]!)
  return out
}

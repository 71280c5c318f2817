import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeSigmaChunk, encodeSigmaChunk } from './sigma-codec'

function roundTrip(points: number[], addresses: number[], sizes: number[]): number {
  const data = encodeSigmaChunk(points.length, Uint32Array.from(points), Float64Array.from(addresses), Uint16Array.from(sizes))
  const back = decodeSigmaChunk(data)
  expect(Array.from(back.points)).toEqual(points)
  expect(Array.from(back.addresses)).toEqual(addresses)
  expect(Array.from(back.sizes)).toEqual(sizes)
  return data.length
}

describe('SIGMA repeat/exit codec', () => {
  it('round trips loop nests with exits, mixed with random accesses (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ outer: fc.integer({ min: 1, max: 6 }), inner: fc.integer({ min: 1, max: 9 }), cut: fc.nat(8), stride: fc.integer({ min: -64, max: 64 }) }),
            fc.array(fc.integer({ min: 0, max: 2 ** 40 }), { maxLength: 5 })
          ),
          { maxLength: 8 }
        ),
        (parts) => {
          const points: number[] = []
          const addresses: number[] = []
          const sizes: number[] = []
          for (const part of parts) {
            if (Array.isArray(part)) {
              for (const a of part) points.push(7), addresses.push(a), sizes.push(4)
              continue
            }
            for (let i = 0; i < part.outer; i++)
              for (let j = 0; j < part.inner; j++) {
                if (i === part.outer - 1 && j === part.cut) break
                points.push(0, 1, 2)
                addresses.push(1000 + i * 4096 + j * 8, 900000 + j * part.stride, 1000 + i * 4096 + j * 8)
                sizes.push(8, 8, j % 3 === 0 ? 4 : 8)
              }
          }
          roundTrip(points, addresses, sizes)
        }
      ),
      { numRuns: 200 }
    )
  })

  it('stores a 2-deep loop nest of 60K accesses in a few hundred bytes', () => {
    const points: number[] = []
    const addresses: number[] = []
    for (let i = 0; i < 100; i++)
      for (let j = 0; j < 200; j++) {
        points.push(0, 1, 2)
        addresses.push(0x4000 + (i * 200 + j) * 8, 0x800000 + (j * 1000 + i) * 8, 0x4000 + (i * 200 + j) * 8)
      }
    expect(roundTrip(points, addresses, points.map(() => 8))).toBeLessThan(300)
  })
})

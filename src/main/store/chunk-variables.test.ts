import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeChunkVariables, encodeChunkVariables, encodeChunkVariablesAsync } from './chunk-variables'

describe('chunk variables', () => {
  it('round-trips every access\'s data structure', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ point: fc.nat(9), variable: fc.oneof(fc.nat(3), fc.nat(70000)) }), { maxLength: 500 }), (accesses) => {
        const points = Uint32Array.from(accesses, (a) => a.point)
        const variables = Int32Array.from(accesses, (a) => a.variable)
        const data = encodeChunkVariables(accesses.length, points, variables, 10)
        expect([...decodeChunkVariables(data, accesses.length, points, 10, 70001)]).toEqual([...variables])
      })
    )
  })

  it('stores the same bytes compressed on the thread pool, the arrays read before it returns', async () => {
    const n = 50000
    const points = Uint32Array.from({ length: n }, (_, i) => (i * 7) % 13)
    const variables = Int32Array.from({ length: n }, (_, i) => 1 + ((i >> 5) % 9))
    const sync = encodeChunkVariables(n, points, variables, 13)
    const pending = encodeChunkVariablesAsync(n, points, variables, 13)
    // The writer reuses the arrays for the next chunk as soon as the call returns.
    points.fill(0)
    variables.fill(0)
    expect(Buffer.compare(await pending, sync)).toBe(0)
  })

  it('keeps only the changes: a point on one structure costs a few bytes', () => {
    const n = 1 << 18
    const points = Uint32Array.from({ length: n }, (_, i) => i % 7)
    const variables = Int32Array.from(points, (p) => p + 1)
    expect(encodeChunkVariables(n, points, variables, 7).length).toBeLessThan(64)
  })

  it('refuses damage in one line: an id outside the session, a cut column, other bytes', () => {
    const points = Uint32Array.of(0, 1, 0, 1)
    const data = encodeChunkVariables(4, points, Int32Array.of(3, 4, 5, 4), 2)
    expect(() => decodeChunkVariables(data, 4, points, 2, 5)).toThrow(/names a data structure the session does not have/)
    expect(() => decodeChunkVariables(data.subarray(0, data.length - 2), 4, points, 2, 9)).toThrow(/damaged/)
    expect(() => decodeChunkVariables(Buffer.from('not brotli at all'), 4, points, 2, 9)).toThrow(/damaged/)
    // A point whose first access in the chunk the column does not name.
    expect(() => decodeChunkVariables(encodeChunkVariables(1, points, Int32Array.of(3), 2), 2, points, 2, 9)).toThrow(/an access has none/)
  })
})

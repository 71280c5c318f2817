import { describe, expect, it } from 'vitest'
import { grownFor } from './typed-arrays'

describe('grownFor', () => {
  it('keeps an array that holds the index, and grows one that does not, keeping its cells', () => {
    const a = Int32Array.of(4, 5)
    expect(grownFor(a, 1)).toBe(a)
    const g = grownFor(a, 2, -1)
    expect(g).toBeInstanceOf(Int32Array)
    expect([...g]).toEqual([4, 5, -1, -1])
    expect(grownFor(new Float64Array(0), 0, 0, 1024).length).toBe(1024)
    expect(grownFor(new Uint8Array(3), 10).length).toBe(11)
  })
})

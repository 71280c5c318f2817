import { describe, expect, it } from 'vitest'
import { buildLayoutMap, type PlacedVariable } from './layout-filter'

const v = (name: string, start: number, size: number, dims: number[] | null = null, elementSize: number | null = null): PlacedVariable => ({
  name,
  start,
  size,
  group: 'prog',
  dims,
  elementSize
})

describe('LayoutFilter (SIGMA 3.2)', () => {
  const abc = [v('A', 1000, 100), v('B', 1100, 100), v('C', 1200, 100)]
  it('external padding moves the variable and everything after it', () => {
    const m = buildLayoutMap(abc, [{ kind: 'external', variable: 'B', bytes: 64 }])
    expect([1050, 1100, 1150, 1250, 999, 5000].map((a) => m.map(a))).toEqual([1050, 1164, 1214, 1314, 999, 5000])
  })
  it('paddings add up (pad B and C by 1 KiB: C moves 2 KiB)', () => {
    const m = buildLayoutMap(abc, [
      { kind: 'external', variable: 'B', bytes: 1024 },
      { kind: 'external', variable: 'C', bytes: 1024 }
    ])
    expect([1050, 1150, 1250].map((a) => m.map(a))).toEqual([1050, 2174, 3298])
  })
  it('internal padding, row-major: 2x3 -> 2x4 moves element (1,2) from offset 20 to 24, and what follows by 8', () => {
    const vars = [v('M', 0, 24, [2, 3], 4), v('N', 24, 8)]
    const m = buildLayoutMap(vars, [{ kind: 'internal', variable: 'M', dim: 1, extent: 4, order: 'row' }])
    expect([0, 8, 12, 20, 23, 24, 31].map((a) => m.map(a))).toEqual([0, 8, 16, 24, 27, 32, 39])
  })
  it('internal padding, column-major: growing the first dimension (SIGMA: 512x512 -> 513x512)', () => {
    // Column-major 2x3: element index 5 is (1, 2); with dims 3x3 it is 1 + 2*3 = 7.
    const m = buildLayoutMap([v('M', 0, 24, [2, 3], 4)], [{ kind: 'internal', variable: 'M', dim: 0, extent: 3, order: 'column' }])
    expect(m.map(20)).toBe(28)
    expect(m.map(8)).toBe(12) // (0, 1) -> 0 + 1*3
  })
  it('dimensions can be given when the session does not know them', () => {
    expect(() => buildLayoutMap([v('M', 0, 24)], [{ kind: 'internal', variable: 'M', dim: 1, extent: 4, order: 'row' }])).toThrow(/dimensions of "M" are not known/)
    const m = buildLayoutMap([v('M', 0, 24)], [{ kind: 'internal', variable: 'M', dim: 1, extent: 4, order: 'row', dims: [2, 3], elementSize: 4 }])
    expect(m.map(20)).toBe(24)
    expect(() => buildLayoutMap([v('M', 0, 24)], [{ kind: 'internal', variable: 'M', dim: 1, extent: 4, order: 'row', dims: [2, 2], elementSize: 4 }])).toThrow(/make 16 bytes/)
  })
  it('names unknown variables', () => {
    expect(() => buildLayoutMap(abc, [{ kind: 'external', variable: 'Z', bytes: 8 }])).toThrow(/"Z" is not known/)
  })
})

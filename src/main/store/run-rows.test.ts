import { describe, expect, it } from 'vitest'
import { packRun, unpackRun, type KeptRun } from './run-rows'

describe('packed runs', () => {
  it('unpack(pack(rows)) gives the rows back, NULL metrics included', () => {
    const kept: KeptRun = {
      createdAt: '2026-11-25T03:00:00.000Z',
      config: '{"levels":[]}',
      points: [
        [0, 0, 10, 2, 1, 0, 5, 6, 48, 3],
        [0, 1, 1, 0, 1, 0, null, null, null, null],
        [7, 0, 2 ** 40, 0, 3, 0, 0, 0, 0, 0]
      ],
      evictors: [
        [0, 7, 0, 4],
        [0, 0, -3, 1]
      ]
    }
    const packed = packRun(kept)
    expect(packed.points).toBeInstanceOf(Float64Array)
    expect(packed.points.length).toBe(30)
    expect(unpackRun(packed)).toEqual(kept)
  })

  it('an empty run stays empty', () => {
    expect(unpackRun(packRun({ createdAt: 'x', config: '{}', points: [], evictors: [] }))).toEqual({ createdAt: 'x', config: '{}', points: [], evictors: [] })
  })
})

import { describe, expect, it } from 'vitest'
import { EVICTOR_WIDTH, POINT_WIDTH, flatRows, orNull } from './run-rows'

describe('flat run rows', () => {
  it('flatten rows read back in the columns\' order, NULL as NaN, and read NaN back as NULL', () => {
    const rows = [
      [0, 0, 10, 2, 1, 0, 5, 6, 48, 3],
      [0, 1, 1, 0, 1, 0, null, null, null, null],
      [7, 0, 2 ** 40, 0, 3, 0, 0, 0, 0, 0]
    ]
    const flat = flatRows(rows, POINT_WIDTH)
    expect(flat.length).toBe(3 * POINT_WIDTH)
    const back = Array.from({ length: 3 }, (_, i) => Array.from(flat.subarray(i * POINT_WIDTH, (i + 1) * POINT_WIDTH), orNull))
    expect(back).toEqual(rows)
    expect(flatRows([], EVICTOR_WIDTH)).toEqual(new Float64Array(0))
  })
})

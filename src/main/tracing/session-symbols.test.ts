import { describe, expect, it } from 'vitest'
import { loopLine, walkStrides } from './session-symbols'

describe("a loop's source line", () => {
  it('is the first line its accesses come from, not the header placed on the closing brace', () => {
    // conflict.c: the for-loop's condition compiled at the loop's end maps to line 31 ("}").
    expect(loopLine({ file: 'c.c', line: 31 }, [{ file: 'c.c', line: 30 }, { file: 'c.c', line: 30 }, { file: 'other.h', line: 2 }])).toEqual({ file: 'c.c', line: 30 })
  })
  it("keeps the header's line when no access of the loop was traced", () => {
    expect(loopLine({ file: 'c.c', line: 29 }, [])).toEqual({ file: 'c.c', line: 29 })
    expect(loopLine(undefined, [{ file: null, line: null }])).toEqual({ file: null, line: null })
  })
})

describe("a data structure's walk strides", () => {
  const streams = (strides: Array<[number, number]>, n: number) => ({ point: 0, accesses: 0, regularity: 1, meanStreamLength: 0, streams: n, distinctLengths: 0, distinctStrides: strides.length, lengths: [], strides: strides.map(([stride, fraction]) => ({ stride, fraction })) })
  it("are its points' RSD strides weighted by RSD count, from points that spent at least 90% of their accesses on it", () => {
    const of = walkStrides(
      new Map([
        [0, streams([[4096, 1]], 512)],
        [1, streams([[8, 0.5], [16, 0.5]], 10)],
        [2, streams([[24, 1]], 4)]
      ]),
      new Map([
        [0, new Map([[5, 100]])],
        [1, new Map([[5, 95], [6, 5]])],
        [2, new Map([[5, 50], [6, 50]])]
      ])
    )
    expect(of(5)).toEqual([{ stride: 4096, weight: 512 }, { stride: 8, weight: 5 }, { stride: 16, weight: 5 }])
    expect(of(6)).toEqual([])
    expect(of(7)).toEqual([])
  })
})

import { describe, expect, it } from 'vitest'
import { walkStrides } from './session-symbols'

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

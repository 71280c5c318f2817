import { describe, expect, it } from 'vitest'
import type { AccessBatch } from '../hierarchy'
import { NestStream } from './nest-stream'

/** Point 0 and 1: the nest's body (a row-walk and a column-walk); point 2: outside it. */
function trace(): Array<[number, number]> {
  const out: Array<[number, number]> = [[2, 1], [2, 2]]
  for (let o = 0; o < 3; o++) for (let i = 0; i < 4; i++) out.push([0, 1000 + o * 32 + i * 8], [1, 5000 + i * 4096 + o * 8])
  out.push([2, 3])
  return out
}

const batch = (items: Array<[number, number]>): AccessBatch => ({
  count: items.length,
  points: Uint32Array.from(items, ([p]) => p),
  addresses: Float64Array.from(items, ([, a]) => a),
  sizes: new Uint16Array(items.length).fill(8)
})

const flat = (batches: AccessBatch[]) => batches.flatMap((b) => Array.from(b.points, (p, k) => [p, b.addresses[k]!] as [number, number]))

describe('NestStream', () => {
  it('holds a nest run across batches, hands it on interchanged, and passes everything else in place', () => {
    const items = trace()
    const stream = new NestStream(Uint8Array.from([1, 1, 0]), new Uint8Array(3), { kind: 'interchange' }, (p) => `p${p}`)
    const out: Array<[number, number]> = []
    // Batches that cut the run anywhere (7 and 13 accesses in).
    for (const [from, to] of [[0, 7], [7, 13], [13, items.length]]) out.push(...flat(stream.push(batch(items.slice(from, to)))))
    out.push(...flat(stream.finish()))
    const expected: Array<[number, number]> = [[2, 1], [2, 2]]
    for (let i = 0; i < 4; i++) for (let o = 0; o < 3; o++) expected.push([0, 1000 + o * 32 + i * 8], [1, 5000 + i * 4096 + o * 8])
    expected.push([2, 3])
    expect(out).toEqual(expected)
    expect(stream.shapes).toEqual([{ body: [0, 1], inner: 4, outer: 3, instances: 1 }])
  })

  it('transforms a run the trace ends in at finish', () => {
    const items = trace().slice(0, -1)
    const stream = new NestStream(Uint8Array.from([1, 1, 0]), new Uint8Array(3), { kind: 'interchange' }, (p) => `p${p}`)
    const head = flat(stream.push(batch(items)))
    expect(head).toEqual([[2, 1], [2, 2]])
    const tail = flat(stream.finish())
    expect(tail.length).toBe(24)
    expect(tail.slice(0, 4)).toEqual([[0, 1000], [1, 5000], [0, 1032], [1, 5008]])
  })

  it('refuses a run longer than it may hold, in the user\'s terms', () => {
    const stream = new NestStream(Uint8Array.from([1, 1, 0]), new Uint8Array(3), { kind: 'interchange' }, (p) => `p${p}`, 10)
    expect(() => stream.push(batch(trace()))).toThrow(/the nest runs more than 10 accesses without a break/)
  })
})

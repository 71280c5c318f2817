import { describe, expect, it } from 'vitest'
import { PrsdDetector, type Prsd, type PrsdSink } from './prsd'

type Out = Array<{ d: Prsd } | { irregular: number }>

function detect(addresses: number[]): Out {
  const out: Out = []
  const sink: PrsdSink = {
    descriptor: (_p, d) => out.push({ d: JSON.parse(JSON.stringify(d)) as Prsd }),
    irregular: (_p, a) => out.push({ irregular: a })
  }
  const det = new PrsdDetector(1, sink)
  for (const a of addresses) det.add(0, a)
  det.flush()
  return out
}

describe('PRSD detector (METRIC section 4)', () => {
  it('Figure 6: A[i][j] over an N x M block of int A[200][200] becomes one PRSD of height 1', () => {
    const N = 5
    const M = 7
    const addrs: number[] = []
    for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) addrs.push(1000 + i * 200 + j)
    expect(detect(addrs)).toEqual([
      { d: { height: 1, start: 1000, length: N, stride: 200, child: { height: 0, start: 1000, length: M, stride: 1, child: null } } }
    ])
  })

  it('a triple loop nest is one PRSD of height 2', () => {
    const addrs: number[] = []
    for (let k = 0; k < 4; k++) for (let i = 0; i < 3; i++) for (let j = 0; j < 5; j++) addrs.push(8 * (k * 1000 + i * 100 + j))
    const out = detect(addrs)
    expect(out).toHaveLength(1)
    const d = (out[0] as { d: Prsd }).d
    expect([d.height, d.length, d.stride, d.child!.length, d.child!.stride, d.child!.child!.length, d.child!.child!.stride]).toEqual([2, 4, 8000, 3, 800, 5, 8])
  })

  it('RSDs shorter than three are irregular; a lone address too', () => {
    expect(detect([10, 20])).toEqual([{ irregular: 10 }, { irregular: 20 }])
    expect(detect([7])).toEqual([{ irregular: 7 }])
    expect(detect([5, 900, 13, 2000, 44])).toEqual([5, 900, 13, 2000, 44].map((irregular) => ({ irregular })))
  })

  it('a phase change flushes the old PRSD and starts over (is_compatible_sibling fails)', () => {
    const addrs: number[] = []
    for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) addrs.push(i * 100 + j * 4)
    for (let j = 0; j < 10; j++) addrs.push(5000 + j * 8)
    const out = detect(addrs)
    expect(out.map((o) => ('d' in o ? [o.d.height, o.d.start, o.d.length, o.d.stride] : o.irregular))).toEqual([
      [1, 0, 3, 100],
      [0, 5000, 10, 8]
    ])
  })

  it('flushed output expands to the input, in order', () => {
    const addrs = [1, 2, 3, 4, 10, 11, 12, 13, 19, 20, 21, 22, 5, 99, 98, 97, 96, 95, 300, 300, 300]
    const out = detect(addrs)
    const expand = (d: Prsd, base: number, acc: number[]) => {
      for (let i = 0; i < d.length; i++) d.child ? expand(d.child, base + i * d.stride, acc) : acc.push(base + i * d.stride)
    }
    const back: number[] = []
    for (const o of out) 'd' in o ? expand(o.d, o.d.start, back) : back.push(o.irregular)
    expect(back).toEqual(addrs)
  })
})

import { describe, expect, it } from 'vitest'
import { parseCachegrindOut } from './cachegrind-out'

const SAMPLE = `desc: D1 cache:         32768 B, 64 B, 8-way associative
cmd: ./conflict
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw 
fl=/src/conflict.c
fn=main
19 24577 1 1 0 0 0 8192 1024 1024
21 16386 0 0 1 1 1 8192 1024 1024
fn=fill
19 10 0 0 2 1 0 0 0 0
fl=???
fn=???
0 141 28 23 64 12 0 16 2 1
summary: 276891 1361 1337 54116 4390 1008 35532 3488 3421
`

describe('cachegrind.out parser', () => {
  it('reads totals and sums per-line counts over functions', () => {
    const out = parseCachegrindOut(SAMPLE)
    expect(out.totals).toEqual({ Dr: 54116, D1mr: 4390, Dw: 35532, D1mw: 3488 })
    expect(out.lines.get('/src/conflict.c:19')).toEqual({ Dr: 2, D1mr: 1, Dw: 8192, D1mw: 1024 })
    expect(out.lines.get('/src/conflict.c:21')).toEqual({ Dr: 1, D1mr: 1, Dw: 8192, D1mw: 1024 })
  })
  it('says what is missing when the cache simulation was off', () => {
    expect(() => parseCachegrindOut('events: Ir\nsummary: 5\n')).toThrow(/--cache-sim=yes/)
  })
})

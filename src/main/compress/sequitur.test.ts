import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ByteReader, ByteWriter } from './bytes'
import { GrammarCursor, readGrammar, Sequitur } from './sequitur'

function roundTrip(input: number[]): { output: number[]; rules: number; bytes: number } {
  const s = new Sequitur(Math.max(1, input.length))
  for (const v of input) s.append(v)
  const w = new ByteWriter()
  s.writeGrammar(w)
  const g = readGrammar(new ByteReader(w.view()))
  const out = new Uint32Array(input.length + 5)
  const n = new GrammarCursor(g).fill(out, 0, out.length)
  return { output: Array.from(out.subarray(0, n)), rules: g.starts.length - 1, bytes: w.length }
}

describe('SEQUITUR', () => {
  it('expands back to its input (random sequences over small alphabets)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }).chain((k) => fc.array(fc.integer({ min: 0, max: k - 1 }), { maxLength: 600 })), (input) => {
        expect(roundTrip(input).output).toEqual(input)
      }),
      { numRuns: 400 }
    )
  })

  it('expands back to its input (repeated and nested patterns, runs)', () => {
    const pattern = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 7 })
    fc.assert(
      fc.property(fc.array(fc.tuple(pattern, fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: 6 }), (parts) => {
        const input: number[] = []
        for (const [p, n] of parts) for (let i = 0; i < n; i++) input.push(...p)
        expect(roundTrip(input).output).toEqual(input)
      }),
      { numRuns: 300 }
    )
  })

  it('is the paper\'s example: abcdbcabcd -> S = BdAB, A = bc, B = aA (up to names)', () => {
    const { output, rules } = roundTrip([0, 1, 2, 3, 1, 2, 0, 1, 2, 3])
    expect(output).toEqual([0, 1, 2, 3, 1, 2, 0, 1, 2, 3])
    expect(rules).toBe(3)
  })

  it('stores a loop body repeated 65536 times in a grammar of logarithmic size', () => {
    const input: number[] = []
    for (let i = 0; i < 65536 / 4; i++) input.push(3, 1, 4, 1)
    const { output, bytes } = roundTrip(input)
    expect(output).toEqual(input)
    expect(bytes).toBeLessThan(200)
  })

  it('reset starts a new grammar with the same buffers', () => {
    const s = new Sequitur(100)
    for (let i = 0; i < 100; i++) s.append(i % 7)
    s.reset()
    for (const v of [5, 5, 5, 5]) s.append(v)
    const w = new ByteWriter()
    s.writeGrammar(w)
    const out = new Uint32Array(4)
    new GrammarCursor(readGrammar(new ByteReader(w.view()))).fill(out, 0, 4)
    expect(Array.from(out)).toEqual([5, 5, 5, 5])
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HeapBlocks } from './heap-blocks'

/** The blocks as a plain sorted list, against which the typed arrays are checked. */
function model(blocks: HeapBlocks): Array<[number, number, number]> {
  return Array.from({ length: blocks.count }, (_, i) => [blocks.start[i]!, blocks.end[i]!, blocks.variable[i]!])
}

describe('HeapBlocks', () => {
  it('keeps blocks sorted through inserts and removals, past its first capacity, and finds each address', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(5000), fc.integer({ min: 1, max: 8 })), { minLength: 1, maxLength: 3000 }),
        (ops) => {
          const blocks = new HeapBlocks()
          const list: Array<[number, number, number]> = []
          ops.forEach(([add, slot, size], step) => {
            // Blocks live in 16-byte slots, so they never overlap (as the address map keeps them).
            const start = slot * 16
            const at = list.findIndex(([s]) => s >= start)
            const i = at < 0 ? list.length : at
            if (add && list[i]?.[0] !== start) {
              expect(blocks.insertionPoint(start)).toBe(i)
              blocks.insert(i, start, start + size, step)
              list.splice(i, 0, [start, start + size, step])
            } else if (!add && list[i]?.[0] === start) {
              blocks.remove(i)
              list.splice(i, 1)
            }
          })
          expect(model(blocks)).toEqual(list)
          for (const [start, end] of list) {
            const i = list.findIndex(([s]) => s === start)
            expect(blocks.find(start)).toBe(i)
            expect(blocks.find(end - 1)).toBe(i)
            if (list[i + 1]?.[0] !== end) expect(blocks.find(end)).toBe(-1)
          }
          expect(blocks.find(-1)).toBe(-1)
        }
      ),
      { numRuns: 40 }
    )
  })

  it('replaces its arrays when it grows, keeping every block', () => {
    const blocks = new HeapBlocks()
    const first = blocks.start
    for (let i = 0; i < 5000; i++) blocks.insert(0, 1e6 - i * 32, 1e6 - i * 32 + 8, i)
    expect(blocks.start).not.toBe(first)
    expect(blocks.count).toBe(5000)
    expect(blocks.find(1e6 - 4999 * 32 + 7)).toBe(0)
    expect(blocks.variable[4999]).toBe(0)
  })
})

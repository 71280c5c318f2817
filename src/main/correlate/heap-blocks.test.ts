import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HeapBlocks, TOMB } from './heap-blocks'

/** The live blocks in slot order. */
function live(blocks: HeapBlocks): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = []
  for (let i = 0; i < blocks.count; i++) if (blocks.variable[i] !== TOMB) out.push([blocks.start[i]!, blocks.end[i]!, blocks.variable[i]!])
  return out
}

/** What every search over the slots relies on: starts and ends both sorted, tombstones empty. */
function expectSorted(blocks: HeapBlocks): void {
  for (let i = 1; i < blocks.count; i++) {
    expect(blocks.start[i]!).toBeGreaterThanOrEqual(blocks.start[i - 1]!)
    expect(blocks.end[i]!).toBeGreaterThanOrEqual(blocks.end[i - 1]!)
    expect(blocks.start[i]!).toBeGreaterThanOrEqual(blocks.end[i - 1]!)
  }
  for (let i = 0; i < blocks.count; i++) if (blocks.variable[i] === TOMB) expect(blocks.end[i]).toBe(blocks.start[i])
  expect(live(blocks)).toHaveLength(blocks.live)
}

describe('HeapBlocks', () => {
  it('keeps blocks sorted through adds and frees (tombstones filled, moved and dropped), and finds each address', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(5000), fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: 3000 }),
        (ops) => {
          const blocks = new HeapBlocks()
          const list: Array<[number, number, number]> = []
          ops.forEach(([add, slot, size], step) => {
            // Blocks of up to 40 bytes at 16-byte steps: a new one may cover freed ones' places
            // (the address map frees the overlapping blocks first, as here).
            const start = slot * 16
            if (add) {
              for (let i = list.length - 1; i >= 0; i--) {
                const [s, e] = list[i]!
                if (s < start + size && e > start) {
                  blocks.removeAt(blocks.slotOf(s))
                  list.splice(i, 1)
                }
              }
              blocks.tidy()
              blocks.add(start, start + size, step)
              list.push([start, start + size, step])
              list.sort((a, b) => a[0] - b[0])
            } else {
              const i = list.findIndex(([s]) => s === start)
              expect(blocks.slotOf(start) >= 0).toBe(i >= 0)
              if (i >= 0) {
                blocks.removeAt(blocks.slotOf(start))
                blocks.tidy()
                list.splice(i, 1)
              }
            }
            if (step % 97 === 0) expectSorted(blocks)
          })
          expectSorted(blocks)
          expect(live(blocks)).toEqual(list)
          for (const [start, end, variable] of list) {
            expect(blocks.variable[blocks.find(start)]).toBe(variable)
            expect(blocks.variable[blocks.find(end - 1)]).toBe(variable)
            if (!list.some(([s]) => s === end)) expect(blocks.find(end)).toBe(-1)
          }
          expect(blocks.find(-1)).toBe(-1)
          // Tombstones never outnumber the blocks by much (dropped once they do).
          expect(blocks.count - blocks.live).toBeLessThanOrEqual(Math.max(64, blocks.live) + 1)
        }
      ),
      { numRuns: 60 }
    )
  })

  it('replaces its arrays when it grows, keeping every block', () => {
    const blocks = new HeapBlocks()
    const first = blocks.start
    for (let i = 0; i < 5000; i++) blocks.add(1e6 - i * 32, 1e6 - i * 32 + 8, i)
    expect(blocks.start).not.toBe(first)
    expect(blocks.count).toBe(5000)
    expect(blocks.find(1e6 - 4999 * 32 + 7)).toBe(0)
    expect(blocks.variable[4999]).toBe(0)
    // Every block keeps its variable, those added as the arrays grew too (at the end, ascending).
    const ascending = new HeapBlocks()
    for (let i = 0; i < 3000; i++) ascending.add(i * 32, i * 32 + 8, i + 1)
    for (let i = 0; i < 3000; i++) expect(ascending.variable[ascending.find(i * 32)]).toBe(i + 1)
  })

  it('fills a freed slot nearby instead of moving every slot after it', () => {
    const blocks = new HeapBlocks()
    for (let i = 0; i < 1000; i++) blocks.add(i * 64, i * 64 + 32, i)
    blocks.removeAt(blocks.slotOf(10 * 64))
    // A block between the 11th and 12th: the tombstone of the 10th, one slot away, takes it.
    blocks.add(11 * 64 + 32, 11 * 64 + 48, 5000)
    expect(blocks.count).toBe(1000)
    expect(blocks.live).toBe(1000)
    expectSorted(blocks)
    expect(blocks.variable[blocks.find(11 * 64 + 40)]).toBe(5000)
  })
})

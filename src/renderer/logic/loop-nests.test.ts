import { describe, expect, it } from 'vitest'
import type { LoopInfo } from '../../shared/domain'
import { computeLoopNests, flattenLoopNests } from './loop-nests'

let next = 0
const loop = (fn: string, file: string | null, line: number | null, depth: number, parent: number | null): LoopInfo => ({
  id: next++, function: fn, start: '0x0', end: '0x0', depth, parent, file, line, references: []
})

describe('computeLoopNests', () => {
  it('makes the copies of one header one entry, nested under the loop enclosing them', () => {
    next = 0
    const outer = loop('compress', '/s/lz4.c', 800, 0, null) // id 0
    const outer2 = loop('compress', '/s/lz4.c', 800, 0, null) // a versioned copy, id 1
    const loops = [
      outer,
      outer2,
      // The inlined LZ4_count loop, copied into both versions and a second time into the first.
      loop('compress', '/s/lz4.c', 386, 1, 0),
      loop('compress', '/s/lz4.c', 386, 1, 0),
      loop('compress', '/s/lz4.c', 386, 1, 1),
      // Its unrolled copy inside one of its own copies is the same loop, still under 800.
      loop('compress', '/s/lz4.c', 386, 2, 2),
      loop('compress', '/s/hc.c', 90, 0, null),
      // Another function's loops stay out; so do loops without a line.
      loop('other', '/s/lz4.c', 386, 0, null),
      loop('compress', null, null, 0, null)
    ]
    const nests = computeLoopNests(loops, 'compress')
    expect(nests.map((n) => n.key)).toEqual(['/s/hc.c:90', '/s/lz4.c:800'])
    const l800 = nests[1]!
    expect(l800.ids).toEqual([0, 1])
    expect(l800.children.map((c) => [c.key, c.ids.length, c.depth])).toEqual([['/s/lz4.c:386', 4, 1]])
    expect(flattenLoopNests(nests).map((n) => n.line)).toEqual([90, 800, 386])
  })

  it('never makes a cycle of copies nested both ways', () => {
    next = 0
    const loops = [loop('f', '/a.c', 1, 0, null), loop('f', '/a.c', 2, 1, 0), loop('f', '/a.c', 2, 0, null), loop('f', '/a.c', 1, 1, 2)]
    const nests = computeLoopNests(loops, 'f')
    // Both headers have an outermost copy: both are shown at the top, each once.
    expect(nests.map((n) => [n.line, n.children.length])).toEqual([[1, 0], [2, 0]])
  })
})

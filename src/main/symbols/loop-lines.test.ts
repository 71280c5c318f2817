import { describe, expect, it } from 'vitest'
import type { InlineLevel } from './inline-chain'
import { inLoopInstance, loopInstance, loopLineFromChains as fromInstance, nestLoops } from './loop-lines'

const loopLineFromChains = (header: InlineLevel[], latch: InlineLevel[], body: InlineLevel[][]) => fromInstance(loopInstance(header, latch), latch, body)

/** A chain written outermost first, `fn@line:col>fn@line:col`, as a reader follows the calls; returned innermost first. */
function chain(text: string, file = 'c.c'): InlineLevel[] {
  return text
    .split('>')
    .map((t) => {
      const m = /^(\w+)@(\d+)(?::(\d+))?$/.exec(t)!
      return { file, function: m[1]!, line: Number(m[2]), ...(m[3] ? { column: Number(m[3]) } : {}) }
    })
    .reverse()
}

describe("a loop's source line", () => {
  it('is the first line its accesses come from, not the header placed on the closing brace', () => {
    // conflict.c: the for-loop's condition compiled at the loop's end maps to line 31 ("}").
    expect(loopLineFromChains(chain('main@31'), chain('main@31'), [chain('main@30'), chain('main@30'), chain('main@2', 'other.h')])).toEqual({ file: 'c.c', line: 30 })
  })

  it("keeps the header's line when no access of the loop was traced", () => {
    expect(loopLineFromChains(chain('main@29'), chain('main@29'), [])).toEqual({ file: 'c.c', line: 29 })
    expect(loopLineFromChains([], [], [[]])).toEqual({ file: null, line: null })
    // Its header inside an inlined call, its latch on the for statement: the statement's line.
    expect(loopLineFromChains(chain('main@30:3>sum@9'), chain('main@28:9'), [])).toEqual({ file: 'c.c', line: 28 })
  })

  it('two perfectly nested loops keep two lines: each latch is on its own for statement', () => {
    // for (r) { for (i) { g[i] = ..., table[...] += g[i] } }: both bodies first access line 519.
    const body = [chain('work@519'), chain('work@520')]
    expect(loopLineFromChains(chain('work@520'), chain('work@517'), body)).toEqual({ file: 'c.c', line: 517 })
    expect(loopLineFromChains(chain('work@520'), chain('work@518:5'), body)).toEqual({ file: 'c.c', line: 518 })
  })

  it("a caller's loop takes its own line, not the line of a helper inlined in its body", () => {
    // for (r...) out[r] = sum(row) at line 20; sum (inlined, line 8 its loop) reads at line 9; read32 (line 3) inside it.
    const header = chain('main@20:5>sum@8:3>read32@3:40')
    const latch = chain('main@20:22')
    const body = [chain('main@20:5>sum@9:7>read32@3:40'), chain('main@20:5>sum@9:9'), chain('main@20:12')]
    expect(loopLineFromChains(header, latch, body)).toEqual({ file: 'c.c', line: 20 })
  })

  it("an inlined callee's loop takes its line in the callee (its for statement's, where the latch is), its own helpers at their call site", () => {
    const header = chain('main@20:5>sum@9:7>read32@3:40')
    const latch = chain('main@20:5>sum@8:21')
    // Accesses of the caller's loop lie in the range too (code placed inside it): not this loop's.
    const body = [chain('main@20:5>sum@9:7>read32@3:40'), chain('main@20:5>sum@9:9'), chain('main@20:12'), chain('main@2')]
    expect(loopLineFromChains(header, latch, body)).toEqual({ file: 'c.c', line: 8 })
    // A do-while's latch (its condition) comes after the body: the first access is the line.
    expect(loopLineFromChains(header, chain('main@20:5>sum@11:14'), body)).toEqual({ file: 'c.c', line: 9 })
  })

  it('tells two inlined copies on one line apart by their call column', () => {
    // while (count(a) == count(b)): a loop inside the first copy ignores the second copy's accesses.
    const header = chain('f@50:10>count@12')
    const latch = chain('f@50:10>count@13')
    const body = [chain('f@50:10>count@12'), chain('f@50:28>count@11')]
    expect(loopLineFromChains(header, latch, body)).toEqual({ file: 'c.c', line: 12 })
  })

  it('a header in another file (an inlined header-file helper) names that file', () => {
    const inl = [{ file: 'h.h', line: 7, function: 'step' }, { file: 'c.c', line: 40, function: 'main', column: 3 }]
    const latchInl = [{ file: 'h.h', line: 8, function: 'step' }, { file: 'c.c', line: 40, function: 'main', column: 3 }]
    expect(loopLineFromChains(inl, latchInl, [inl, latchInl])).toEqual({ file: 'h.h', line: 7 })
    // A caller's loop around it: the access counts at the call site.
    expect(loopLineFromChains(chain('main@41'), chain('main@41'), [inl])).toEqual({ file: 'c.c', line: 40 })
  })
  it("an inlined copy's loop holds the accesses of its own copy only", () => {
    // lz4: one copy of LZ4_compress_generic per table type, their blocks interleaved in one range.
    const instance = loopInstance(chain('reset@1405:24>generic@1339:12>validated@1196:24'), chain('reset@1405:24>generic@1339:12>validated@1158:35'))
    expect(instance.map((l) => l.function)).toEqual(['reset', 'generic', 'validated'])
    expect(inLoopInstance(instance, chain('reset@1405:24>generic@1339:12>validated@1153:29>count@672'))).toBe(true)
    expect(inLoopInstance(instance, chain('reset@1410:20>generic@1339:12>validated@1080:51'))).toBe(false)
    expect(inLoopInstance(instance, chain('reset@1400'))).toBe(false)
    expect(inLoopInstance(instance, [])).toBe(true)
    expect(fromInstance(instance, [], [chain('reset@1410:20>generic@1339:12>validated@1080:51')])).toEqual({ file: 'c.c', line: 1196 })
  })
})

describe('loops nested by range and inline copy', () => {
  it("a copy's loop is not nested in another copy's loop whose range spans it", () => {
    const c1 = chain('reset@1405:24>validated@1196')
    const c2 = chain('reset@1410:20>validated@1080')
    const inner1 = chain('reset@1405:24>validated@1153:29>count@672')
    const loops = [
      { start: 0x100, end: 0x900, function: 'reset', depth: 0, parent: -1 }, // copy 1's loop
      { start: 0x200, end: 0x300, function: 'reset', depth: 1, parent: 0 }, // copy 2's loop, inside by range
      { start: 0x400, end: 0x500, function: 'reset', depth: 1, parent: 0 }, // copy 1's inlined count loop
      { start: 0x420, end: 0x480, function: 'reset', depth: 2, parent: 2 } // the same count loop again (unrolled)
    ]
    const instances = [loopInstance(c1, c1), loopInstance(c2, c2), loopInstance(inner1, inner1), loopInstance(inner1, inner1)]
    expect(nestLoops(loops, instances).map((l) => [l.parent, l.depth])).toEqual([
      [-1, 0],
      [-1, 0],
      [0, 1],
      [2, 2]
    ])
    // Without inline information (one-level chains) the ranges decide, as parseLoops nests them.
    expect(nestLoops(loops, loops.map(() => [])).map((l) => [l.parent, l.depth])).toEqual(loops.map((l) => [l.parent, l.depth]))
  })
})

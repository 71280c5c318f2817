import { beforeAll, describe, expect, it } from 'vitest'
import type { Node as SyntaxNode } from 'web-tree-sitter'
import { cParser } from '../../correlate/source-expressions'
import { nestInTree } from './source-nest'

let parse: (text: string) => SyntaxNode
beforeAll(async () => {
  const parser = await cParser()
  if (!parser) throw new Error('tree-sitter-c is not installed')
  parse = (text) => parser.parse(text)!.rootNode
})

const SOURCE = [
  'void f(int n, double *c, double *a) {', // 1
  '  for (int i = 0; i < n; i++)', // 2
  '    for (int j = 0; j < n; j++)', // 3
  '      for (int k = 0; k < n; k++)', // 4
  '        c[i] += a[j * n + k];', // 5
  '  for (int i = 0; i < n; i++) {', // 6
  '    for (int j = 0; j < n; j++) c[j] = 0;', // 7
  '    for (int j = 0; j < n; j++) c[j] += 1;', // 8
  '  }', // 9
  '  while (n--) c[n] = 1;', // 10
  '}' // 11
].join('\n')

describe('nestInTree', () => {
  it('a header line names that loop and the one inside it', () => {
    expect(nestInTree(parse(SOURCE), 3)).toEqual({ outer: { start: 3, end: 5 }, inner: { start: 4, end: 5 } })
  })

  it("a line of the innermost loop's body names the loop around that loop (the Advisor's form)", () => {
    expect(nestInTree(parse(SOURCE), 5)).toEqual({ outer: { start: 3, end: 5 }, inner: { start: 4, end: 5 } })
  })

  it('refuses an inner loop that holds loops, sibling loops, a lone loop and a line outside loops', () => {
    expect(nestInTree(parse(SOURCE), 2)).toEqual({ refused: expect.stringMatching(/inner loop \(lines 3-5\) holds loops itself/) })
    expect(nestInTree(parse(SOURCE), 6)).toEqual({ refused: expect.stringMatching(/holds 2 loops one after another \(line 7, line 8\)/) })
    expect(nestInTree(parse(SOURCE), 10)).toEqual({ refused: expect.stringMatching(/has no loop inside it/) })
    expect(nestInTree(parse(SOURCE), 1)).toEqual({ refused: 'no loop is on or around line 1' })
  })
})

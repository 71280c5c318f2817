import { beforeAll, describe, expect, it } from 'vitest'
import type { Node as SyntaxNode } from 'web-tree-sitter'
import { cParser } from '../../correlate/source-expressions'
import { modelFromTree } from './source-reads'

let parse: (text: string) => SyntaxNode
beforeAll(async () => {
  const parser = await cParser()
  if (!parser) throw new Error('tree-sitter-c is not installed')
  parse = (text) => parser.parse(text)!.rootNode
})

const keys = (text: string, line: number) => (modelFromTree(parse(text)).reads.get(line) ?? []).map((r) => `${r.variable}:${r.key}`).sort()

describe('source-reads: what counts as a read', () => {
  it('initializers, compound assignment and increments read; plain = targets and declarations do not', () => {
    const src = `int m, n, s;\nvoid f(void) {\n  int n2 = m;\n  s += n;\n  n = 3;\n  m++;\n}\n`
    expect(keys(src, 3)).toEqual(['m:m'])
    expect(keys(src, 4)).toEqual(['n:n', 's:s'])
    expect(keys(src, 5)).toEqual([])
    expect(keys(src, 6)).toEqual(['m:m'])
  })

  it('&A[i] reads only the index; p->next and *q are reads through p and q; macros are not variables', () => {
    const src = `#define N 8\nstruct node { struct node *next; } *p;\ndouble A[N], *q;\nint i;\nvoid f(double **r) {\n  *r = &A[i];\n  p = p->next;\n  A[0] = *q + N;\n}\n`
    expect(keys(src, 6)).toEqual(['i:i'])
    expect(keys(src, 7)).toEqual(['p:p->next'])
    expect(keys(src, 8)).toEqual(['q:*q'])
  })

  it('2-D subscripts are one access; loops and code lines', () => {
    const src = `double B[4][4];\nint i, j;\nvoid f(void) {\n  for (i = 0; i < 4; i++)\n    for (j = 0; j < 4; j++) {\n      B[j][i] = B[i][j];\n    }\n}\n`
    expect(keys(src, 6)).toEqual(['B:B[i][j]', 'i:i', 'j:j'])
    const m = modelFromTree(parse(src))
    expect(m.loops).toEqual([{ start: 4, end: 7 }, { start: 5, end: 7 }])
    expect(m.codeLines).toEqual([1, 2, 3, 4, 5, 6])
  })
})

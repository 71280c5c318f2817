import { describe, expect, it } from 'vitest'
import type { ReferenceStats, RunReport } from '../../shared/domain'
import { computeCodeTree } from './code-tree'

const ref = (id: string, file: string, line: number, fn: string, misses: number): ReferenceStats => ({
  id,
  pc: '0x0',
  kind: 'read',
  file,
  line,
  function: fn,
  variable: null,
  reads: 10,
  writes: 0,
  levels: { L1: { hits: 10 - misses, misses, readMisses: misses, writeMisses: 0 } }
})

const report: RunReport = {
  run: 1,
  config: { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false },
  levels: [],
  lines: [],
  references: [
    ref('a', '/src/k.c', 30, 'sumfunc', 9),
    ref('b', '/src/k.c', 31, 'sumfunc', 2),
    ref('c', '/src/k.c', 12, 'fill', 0),
    ref('d', '/src/util.c', 5, 'helper', 10),
    { ...ref('e', '/src/k.c', 40, 'main', 0), file: null, line: null }
  ],
  loops: [{ id: 1, function: 'sumfunc', start: '0x1', end: '0x2', depth: 0, parent: null, file: '/src/k.c', line: 29, references: ['a', 'b'] }]
}

describe('code tree', () => {
  const tree = computeCodeTree(report, 'L1')
  it('orders files and functions by misses and opens each at its hottest line', () => {
    expect(tree.map((f) => [f.name, f.misses, f.line])).toEqual([
      ['k.c', 11, 30],
      ['util.c', 10, 5]
    ])
    expect(tree[0]!.children.map((f) => [f.name, f.misses, f.line])).toEqual([
      ['sumfunc', 11, 30],
      ['fill', 0, 12]
    ])
  })
  it('nests the loops with their references', () => {
    expect(tree[0]!.children[0]!.children).toEqual([expect.objectContaining({ kind: 'loop', name: 'loop@29', misses: 11, line: 30 })])
  })
  it('shows the copies of one loop header once, nested in the loop around them, with their misses summed', () => {
    const copies = [2, 3, 4].map((id) => ({ id, function: 'sumfunc', start: '0x1', end: '0x2', depth: 1, parent: 1, file: '/src/k.c', line: 31, references: id === 2 ? ['b'] : [] }))
    const nested = computeCodeTree({ ...report, loops: [{ ...report.loops![0]!, references: ['a'] }, ...copies, { id: 5, function: 'sumfunc', start: '0x1', end: '0x2', depth: 1, parent: 1, file: '/src/util.c', line: 3, references: [] }] }, 'L1')
    const loops = nested[0]!.children[0]!.children
    expect(loops.map((l) => [l.name, l.misses, l.line])).toEqual([['loop@29', 11, 30]])
    // The copies without accesses and the inlined header with none here are left out.
    expect(loops[0]!.children.map((l) => [l.name, l.misses, l.line])).toEqual([['loop@31', 2, 31]])
  })
  it('leaves out references without a line', () => {
    expect(tree.flatMap((f) => f.children).some((fn) => fn.name === 'main')).toBe(false)
  })
})

import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { computeThreadView } from './thread-view'

const ref = (id: string, fn: string | null, variable: string | null) => ({ id, pc: '0x1', kind: 'read', file: null, line: null, function: fn, variable, reads: 0, writes: 0, levels: {} })
const report = {
  references: [ref('a', 'worker', 'g0'), ref('b', 'worker', 'heap@t.c:9'), ref('c', 'main', 'g1'), ref('d', null, null)]
} as unknown as RunReport

describe('computeThreadView', () => {
  it("lists each thread's accesses, references and busiest function and data structure; the threads sum to the total", () => {
    const byReference = new Map([
      ['a', [{ thread: 2, accesses: 300 }, { thread: 3, accesses: 100 }]],
      ['b', [{ thread: 3, accesses: 500 }]],
      ['c', [{ thread: 1, accesses: 40 }]],
      ['d', [{ thread: 1, accesses: 60 }]]
    ])
    const v = computeThreadView(report, byReference, new Map([['heap@t.c:9', { label: 'table', site: 'heap@t.c:9' }]]))
    expect(v.total).toBe(1000)
    expect(v.threads.map((t) => [t.thread, t.accesses, t.references, t.functions])).toEqual([
      [1, 100, 2, 2],
      [2, 300, 1, 1],
      [3, 600, 2, 1]
    ])
    expect(v.threads.reduce((s, t) => s + t.share, 0)).toBeCloseTo(1)
    expect(v.threads[0]!.topFunction).toEqual({ name: '(no function)', accesses: 60 })
    expect(v.threads[2]!.topData).toEqual({ name: 'table', accesses: 500 })
    expect(v.columns).toEqual([1, 2, 3])
    expect(v.othersColumn).toBe(false)
    expect(v.groups.function.map((g) => [g.name, g.total, g.byThread])).toEqual([
      ['worker', 900, [0, 300, 600]],
      ['(no function)', 60, [60, 0, 0]],
      ['main', 40, [40, 0, 0]]
    ])
    expect(v.groups.data[0]).toEqual({ name: 'table', site: 'heap@t.c:9', total: 500, byThread: [0, 0, 500] })
  })

  it('gives the busiest threads a column each and the rest one column together', () => {
    const byReference = new Map([['a', [1, 2, 3, 4].map((t) => ({ thread: t, accesses: t * 10 }))]])
    const v = computeThreadView(report, byReference, new Map(), 2)
    expect(v.columns).toEqual([3, 4])
    expect(v.othersColumn).toBe(true)
    expect(v.groups.function).toEqual([{ name: 'worker', site: null, total: 100, byThread: [30, 40, 30] }])
  })
})

/** What each point touched, read from a session and built from what its writer was given. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SessionWriter, type VariableRow } from './session-writer'
import { readTouches, touchesOf } from './touches'

const variable = (id: number, name: string): VariableRow => ({ id, name, kind: 'global', start: null, size: null, type: null, elementSize: null, dims: null, dimsFrom: null, module: null, allocSite: null, reads: 0, writes: 0 })

describe('touches', () => {
  it('touchesOf gives, value for value and in the same order, what readTouches reads back after writeVariables', () => {
    const writer = new SessionWriter(join(mkdtempSync(join(tmpdir(), 'stride-touches-')), 'w.stride'), { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
    // Two data structures of one name (a static in two files), an id with no row ('unknown'),
    // ties in a point's counts, points given out of order, a point on one structure only.
    const variables = [variable(1, 'A'), variable(2, 'B'), variable(3, 'A'), variable(5, 'C')]
    const histograms = new Map<number, Map<number, number>>([
      [7, new Map([[2, 10], [1, 10], [5, 30], [3, 4]])],
      [0, new Map([[5, 2]])],
      [3, new Map([[9, 6], [2, 6], [1, 1]])],
      [4, new Map([[3, 5], [1, 5], [2, 5]])]
    ])
    writer.writeVariables(variables, histograms)
    const read = readTouches(writer.db)
    const built = touchesOf(variables, histograms)
    expect(built).toEqual(read)
    expect([...built.keys()]).toEqual([...read.keys()])
    for (const [point, list] of read) expect(built.get(point)!.map((t) => t.variable)).toEqual(list.map((t) => t.variable))
    // The fixture means something: names merged, the unknown id named so, ties kept apart.
    expect(read.get(7)).toEqual([{ variable: 'C', accesses: 30 }, { variable: 'A', accesses: 14 }, { variable: 'B', accesses: 10 }])
    expect(read.get(3)!.map((t) => t.variable)).toEqual(['B', 'unknown', 'A'])
    writer.discard()
  })
})

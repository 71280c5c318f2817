import { describe, expect, it } from 'vitest'
import { createTableModel, describeExportScope, describeRowCount, naturalKey, nextSort, pickRows, type SortableColumn } from './data-table'

interface Row {
  id: string
  file: string | null
  misses: number
  ratio: number | null
}

const COLUMNS: SortableColumn<Row>[] = [
  { key: 'id', type: 'text', sortValue: (r) => r.id },
  { key: 'file', type: 'text', sortValue: (r) => r.file },
  { key: 'misses', type: 'number', sortValue: (r) => r.misses },
  { key: 'ratio', type: 'number', sortValue: (r) => r.ratio },
  { key: 'plain', type: 'text' }
]

const ROWS: Row[] = [
  { id: 'A_Read_10', file: 'b.c', misses: 5, ratio: 0.5 },
  { id: 'A_Read_9', file: 'a.c', misses: 7, ratio: null },
  { id: 'b_Write_2', file: null, misses: 5, ratio: 0.1 },
  { id: 'C_Read_1', file: 'A.c', misses: 100, ratio: 1 },
  { id: 'A_Read_100', file: 'b.c', misses: 5, ratio: 0.5 }
]

const ids = (order: Uint32Array) => pickRows(ROWS, order).map((r) => r.id)

describe('table sorting', () => {
  it('sorts numbers as numbers, ties in the rows’ own order in both directions (stable)', () => {
    const m = createTableModel(ROWS, COLUMNS)
    expect(ids(m.sorted({ key: 'misses', dir: 'asc' }))).toEqual(['A_Read_10', 'b_Write_2', 'A_Read_100', 'A_Read_9', 'C_Read_1'])
    expect(ids(m.sorted({ key: 'misses', dir: 'desc' }))).toEqual(['C_Read_1', 'A_Read_9', 'A_Read_10', 'b_Write_2', 'A_Read_100'])
  })

  it('ranks any numbers: negatives, infinities, zeros of both signs as one value, NaN as no value', () => {
    const values = [3, -Infinity, 0, NaN, -2.5, Infinity, -0, 3]
    const rows = values.map((v, i) => ({ i, v }))
    const m = createTableModel(rows, [{ key: 'v', type: 'number', sortValue: (r) => r.v }])
    expect([...m.sorted({ key: 'v', dir: 'asc' })]).toEqual([1, 4, 2, 6, 0, 7, 5, 3])
    expect([...m.sorted({ key: 'v', dir: 'desc' })]).toEqual([5, 0, 7, 2, 6, 4, 1, 3])
  })

  it('sorts text naturally (digit runs as numbers) and case-insensitively', () => {
    const m = createTableModel(ROWS, COLUMNS)
    expect(ids(m.sorted({ key: 'id', dir: 'asc' }))).toEqual(['A_Read_9', 'A_Read_10', 'A_Read_100', 'b_Write_2', 'C_Read_1'])
    expect(ids(m.sorted({ key: 'id', dir: 'desc' }))).toEqual(['C_Read_1', 'b_Write_2', 'A_Read_100', 'A_Read_10', 'A_Read_9'])
    expect(naturalKey('x9') < naturalKey('x10')).toBe(true)
  })

  it('puts rows without a value last in both directions, equal texts keeping their order', () => {
    const m = createTableModel(ROWS, COLUMNS)
    expect(ids(m.sorted({ key: 'ratio', dir: 'desc' }))).toEqual(['C_Read_1', 'A_Read_10', 'A_Read_100', 'b_Write_2', 'A_Read_9'])
    expect(ids(m.sorted({ key: 'ratio', dir: 'asc' }))).toEqual(['b_Write_2', 'A_Read_10', 'A_Read_100', 'C_Read_1', 'A_Read_9'])
    // "a.c" and "A.c" are one key: their own order; b.c twice: their own order; null last.
    expect(ids(m.sorted({ key: 'file', dir: 'asc' }))).toEqual(['A_Read_9', 'C_Read_1', 'A_Read_10', 'A_Read_100', 'b_Write_2'])
    expect(ids(m.sorted({ key: 'file', dir: 'desc' }))).toEqual(['A_Read_10', 'A_Read_100', 'A_Read_9', 'C_Read_1', 'b_Write_2'])
  })

  it('keeps the rows’ order with no sort or a column that does not sort, and reuses a computed order', () => {
    const m = createTableModel(ROWS, COLUMNS)
    expect(ids(m.sorted(null))).toEqual(ROWS.map((r) => r.id))
    expect(ids(m.sorted({ key: 'plain', dir: 'asc' }))).toEqual(ROWS.map((r) => r.id))
    expect(ids(m.sorted({ key: 'nope', dir: 'asc' }))).toEqual(ROWS.map((r) => r.id))
    expect(m.sorted({ key: 'misses', dir: 'asc' })).toBe(m.sorted({ key: 'misses', dir: 'asc' }))
  })

  it('flips on the sorted column and starts numbers largest first, text A to Z', () => {
    expect(nextSort(null, 'misses', 'number')).toEqual({ key: 'misses', dir: 'desc' })
    expect(nextSort({ key: 'misses', dir: 'desc' }, 'misses', 'number')).toEqual({ key: 'misses', dir: 'asc' })
    expect(nextSort({ key: 'misses', dir: 'desc' }, 'id', 'text')).toEqual({ key: 'id', dir: 'asc' })
  })
})

describe('table filtering', () => {
  it('matches a substring of any text column, case-insensitively, keeping the sort order', () => {
    const m = createTableModel(ROWS, COLUMNS)
    const order = m.sorted({ key: 'misses', dir: 'desc' })
    expect(ids(m.filter(order, 'read_1'))).toEqual(['C_Read_1', 'A_Read_10', 'A_Read_100'])
    expect(ids(m.filter(order, '  A.C '))).toEqual(['C_Read_1', 'A_Read_9'])
    expect(m.filter(order, '')).toBe(order)
    expect(m.filter(order, 'zzz').length).toBe(0)
  })

  it('does not match numbers unless a column says so, nor across columns', () => {
    const m = createTableModel(ROWS, COLUMNS)
    expect(m.filter(m.sorted(null), '100').length).toBe(1) // A_Read_100's id, not C_Read_1's 100 misses
    expect(m.filter(m.sorted(null), 'a_read_9a.c').length).toBe(0)
    const withMisses = createTableModel(ROWS, [...COLUMNS, { key: 'm', type: 'number', filterText: (r) => String(r.misses) }])
    expect(ids(withMisses.filter(withMisses.sorted(null), '100'))).toEqual(['C_Read_1', 'A_Read_100'])
  })

  it('says how many rows are shown', () => {
    expect(describeRowCount(7209, 7209)).toBe('7,209 rows')
    expect(describeRowCount(12, 7209)).toBe('12 of 7,209 rows')
  })
})

describe('table model at scale', () => {
  it('sorts 100 K rows by numbers and by text into permutations in order', () => {
    const n = 100_000
    let x = 7
    const rnd = () => ((x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32)
    const rows: Row[] = Array.from({ length: n }, (_, i) => ({ id: `V${Math.floor(rnd() * 5000)}_Read_${i}`, file: `f${i % 37}.c`, misses: Math.floor(rnd() * 1000), ratio: rnd() }))
    const m = createTableModel(rows, COLUMNS)
    const byMisses = m.sorted({ key: 'misses', dir: 'desc' })
    expect(new Set(byMisses).size).toBe(n)
    for (let i = 1; i < n; i++) {
      const a = rows[byMisses[i - 1]!]!
      const b = rows[byMisses[i]!]!
      expect(a.misses > b.misses || (a.misses === b.misses && byMisses[i - 1]! < byMisses[i]!)).toBe(true)
    }
    const byId = m.sorted({ key: 'id', dir: 'asc' })
    for (let i = 1; i < n; i += 97) expect(naturalKey(rows[byId[i - 1]!]!.id) <= naturalKey(rows[byId[i]!]!.id)).toBe(true)
  })
})

describe('keys computed ahead', () => {
  it('prepares every sortable column, then sorts and filters the same', () => {
    const m = createTableModel(ROWS, COLUMNS)
    let steps = 0
    while (m.prepare()) steps++
    expect(steps).toBe(4) // id, file, misses, ratio; then the haystack, on the call that says nothing is left
    expect(m.prepare()).toBe(false)
    const fresh = createTableModel(ROWS, COLUMNS)
    for (const key of ['id', 'file', 'misses', 'ratio']) for (const dir of ['asc', 'desc'] as const) expect([...m.sorted({ key, dir })]).toEqual([...fresh.sorted({ key, dir })])
    expect([...m.filter(m.sorted(null), 'a.c')]).toEqual([...fresh.filter(fresh.sorted(null), 'a.c')])
  })
})

describe('export scope', () => {
  it('says whether an export takes every row or the filtered ones, in the shown order', () => {
    expect(describeExportScope(7209, 7209)).toBe('Export all 7,209 rows')
    expect(describeExportScope(12, 7209)).toBe('Export 12 filtered rows')
  })
})

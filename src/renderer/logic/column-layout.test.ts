import { describe, expect, it } from 'vitest'
import { defaultLayout, moveColumn, reconcileLayout, toggleColumn, visibleColumns } from './column-layout'

const columns = [{ key: 'id', required: true }, { key: 'misses', required: true }, { key: 'location' }, { key: 'reads' }]

describe('column layout', () => {
  it('hides and moves columns, never a key column', () => {
    let l = defaultLayout(columns)
    l = toggleColumn(l, columns, 'location')
    l = toggleColumn(l, columns, 'misses')
    expect(visibleColumns(columns, l).map((c) => c.key)).toEqual(['id', 'misses', 'reads'])
    l = moveColumn(moveColumn(l, 'reads', -1), 'reads', -1)
    expect(visibleColumns(columns, l).map((c) => c.key)).toEqual(['id', 'reads', 'misses'])
    expect(moveColumn(l, 'id', -1)).toBe(l)
    l = toggleColumn(l, columns, 'location')
    expect(visibleColumns(columns, l).map((c) => c.key)).toEqual(['id', 'reads', 'misses', 'location'])
  })

  it('reads back a stored choice made valid for the columns of today', () => {
    expect(reconcileLayout({ order: ['reads', 'gone', 'id', 'reads', 7], hidden: ['misses', 'reads', 'gone'] }, columns)).toEqual({
      // misses and location were unknown to the stored order: each goes after its default predecessor.
      order: ['reads', 'id', 'misses', 'location'],
      hidden: ['reads']
    })
    expect(reconcileLayout('junk', columns)).toEqual(defaultLayout(columns))
    expect(reconcileLayout(null, columns)).toEqual(defaultLayout(columns))
  })
})

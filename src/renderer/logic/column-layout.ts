/**
 * Which columns a table shows, in which order: the user's choice (hide, move), remembered per
 * table as JSON, over the columns the table has today. Key columns (a table's identity and its
 * main figure: Reference, misses) cannot be hidden, so no choice loses them; a column the
 * stored choice does not know (added since) shows in its default place; a stored key the table
 * no longer has is dropped. Pure: storage is the caller's.
 */

export interface ColumnLayout {
  /** Every column key, in display order. */
  order: string[]
  hidden: string[]
}

export interface LayoutColumn {
  key: string
  /** A key column: always shown. */
  required?: boolean
}

/** The layout the columns default to: their own order, all shown. */
export const defaultLayout = (columns: readonly LayoutColumn[]): ColumnLayout => ({ order: columns.map((c) => c.key), hidden: [] })

/** A stored layout (any JSON) made valid for these columns. */
export function reconcileLayout(stored: unknown, columns: readonly LayoutColumn[]): ColumnLayout {
  const keys = columns.map((c) => c.key)
  const known = new Set(keys)
  const s = stored as Partial<ColumnLayout> | null
  const order = Array.isArray(s?.order) ? s.order.filter((k): k is string => typeof k === 'string' && known.has(k)) : []
  const uniq = [...new Set(order)]
  // New columns go after the column that precedes them by default.
  keys.forEach((k, i) => {
    if (uniq.includes(k)) return
    const before = i === 0 ? -1 : uniq.indexOf(keys[i - 1]!)
    uniq.splice(before + 1, 0, k)
  })
  const required = new Set(columns.filter((c) => c.required).map((c) => c.key))
  const hidden = Array.isArray(s?.hidden) ? [...new Set(s.hidden.filter((k): k is string => typeof k === 'string' && known.has(k) && !required.has(k)))] : []
  return { order: uniq, hidden }
}

/** The columns to draw, in order. */
export function visibleColumns<C extends LayoutColumn>(columns: readonly C[], layout: ColumnLayout): C[] {
  const byKey = new Map(columns.map((c) => [c.key, c]))
  return layout.order.filter((k) => !layout.hidden.includes(k)).map((k) => byKey.get(k)!).filter(Boolean)
}

export function toggleColumn(layout: ColumnLayout, columns: readonly LayoutColumn[], key: string): ColumnLayout {
  if (columns.find((c) => c.key === key)?.required) return layout
  return { ...layout, hidden: layout.hidden.includes(key) ? layout.hidden.filter((k) => k !== key) : [...layout.hidden, key] }
}

/** The column moved one place earlier (-1) or later (+1); at an end it stays. */
export function moveColumn(layout: ColumnLayout, key: string, delta: -1 | 1): ColumnLayout {
  const i = layout.order.indexOf(key)
  const j = i + delta
  if (i < 0 || j < 0 || j >= layout.order.length) return layout
  const order = [...layout.order]
  ;[order[i], order[j]] = [order[j]!, order[i]!]
  return { ...layout, order }
}

/**
 * Sorting and filtering behind every table (`components/DataTable.tsx`), kept out of React so
 * it is cheap at 100 K rows and testable. A model is built once per rows array; it computes
 * each column's sort keys the first time that column is sorted, or ahead in idle time
 * (`prepare`): the rank of each row's value among the column's distinct values (numbers by
 * value, text in natural order), in a Uint32Array. A sort is then a counting sort of row
 * indexes by rank: linear, ties kept in the rows' own order (stable, in either direction), rows
 * without a value last. The filter's lower-cased haystack is built the first time something is
 * typed (or ahead). Pure.
 */

export type SortDir = 'asc' | 'desc'
export interface TableSort {
  key: string
  dir: SortDir
}

/** What the logic needs of a column: how to sort it and whether the filter reads it. */
export interface SortableColumn<R> {
  key: string
  /** 'number' sorts by value; 'text' in natural order (case-insensitive, digit runs as numbers). */
  type: 'number' | 'text'
  /** The sort value; null (or NaN) sorts last in both directions. Omitted: the column does not sort. */
  sortValue?: (row: R) => number | string | null
  /** Text the filter matches (substring, case-insensitive); text columns default to their sort value. */
  filterText?: (row: R) => string | null
}

/** The direction a first click sorts in: numbers largest first, text A to Z. */
export function firstDirection(type: 'number' | 'text'): SortDir {
  return type === 'number' ? 'desc' : 'asc'
}

/** The sort after a click on a column: the other direction on the sorted column, else its first direction. */
export function nextSort(current: TableSort | null, key: string, type: 'number' | 'text'): TableSort {
  if (current && current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' }
  return { key, dir: firstDirection(type) }
}

const PAD = '000000000000'

/** A text's sort key: lower case, digit runs zero-padded so "x9" < "x10" with a plain comparison. */
export function naturalKey(text: string): string {
  const t = text.toLowerCase()
  const n = t.length
  let out = ''
  let from = 0
  for (let i = 0; i < n; i++) {
    const c = t.charCodeAt(i)
    if (c < 48 || c > 57) continue
    let j = i + 1
    while (j < n && t.charCodeAt(j) >= 48 && t.charCodeAt(j) <= 57) j++
    const digits = j - i
    out += t.slice(from, i) + (digits < PAD.length ? PAD.slice(digits) : '') + t.slice(i, j)
    from = j
    i = j - 1
  }
  return from === 0 ? t : out + t.slice(from)
}

/**
 * A column's sort keys as dense ranks: equal values share a rank, ranks 0..distinct-1 in
 * ascending order, rows without a value get `distinct` (their own bucket, always last).
 */
interface Ranks {
  rank: Uint32Array
  distinct: number
}

/** Ranks of a text column, in natural order. */
function textRanks(values: ReadonlyArray<string | null>): Ranks {
  const n = values.length
  const keys = new Array<string>(n)
  const idx: number[] = []
  const rank = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (v !== null && v !== undefined) {
      keys[i] = naturalKey(v)
      idx.push(i)
    }
  }
  idx.sort((a, b) => {
    const x = keys[a]!
    const y = keys[b]!
    return x < y ? -1 : x > y ? 1 : 0
  })
  let r = -1
  for (let i = 0; i < idx.length; i++) {
    if (i === 0 || keys[idx[i]!] !== keys[idx[i - 1]!]) r++
    rank[idx[i]!] = r
  }
  const distinct = r + 1
  for (let i = 0; i < n; i++) if (values[i] === null || values[i] === undefined) rank[i] = distinct
  return { rank, distinct }
}

/** Ranks of a numeric column (NaN: no value): a native sort of the values, then a binary search per row. */
function numberRanks(values: Float64Array): Ranks {
  const n = values.length
  let valued = 0
  for (let i = 0; i < n; i++) if (!Number.isNaN(values[i]!)) valued++
  const sorted = new Float64Array(valued)
  for (let i = 0, j = 0; i < n; i++) if (!Number.isNaN(values[i]!)) sorted[j++] = values[i]!
  sorted.sort()
  let distinct = 0
  for (let i = 0; i < valued; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i]!
  const rank = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    const v = values[i]!
    if (Number.isNaN(v)) {
      rank[i] = distinct
      continue
    }
    let lo = 0
    let hi = distinct - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid]! < v) lo = mid + 1
      else hi = mid
    }
    rank[i] = lo
  }
  return { rank, distinct }
}

/** Row indexes by rank (a counting sort: linear, and stable, rows of one rank in their own order), no-value rows last. */
function orderByRank({ rank, distinct }: Ranks, dir: SortDir): Uint32Array {
  const n = rank.length
  const start = new Uint32Array(distinct + 1)
  for (let i = 0; i < n; i++) start[rank[i]!]!++
  let pos = 0
  const place = (r: number) => {
    const c = start[r]!
    start[r] = pos
    pos += c
  }
  if (dir === 'asc') for (let r = 0; r < distinct; r++) place(r)
  else for (let r = distinct - 1; r >= 0; r--) place(r)
  place(distinct)
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i++) order[start[rank[i]!]!++] = i
  return order
}

export interface TableModel {
  readonly size: number
  /** Row indexes in sort order (the rows' own order for null); the same array for the same sort. */
  sorted(sort: TableSort | null): Uint32Array
  /** The indexes of `order` whose filter text contains `query` (trimmed, case-insensitive), in order. */
  filter(order: Uint32Array, query: string): Uint32Array
  /**
   * Computes one column's sort keys (or the filter's haystack) ahead of a click, for idle time:
   * true while something is left. A first text sort of 100 K rows costs most of its time there.
   */
  prepare(): boolean
}

export function createTableModel<R>(rows: readonly R[], columns: ReadonlyArray<SortableColumn<R>>): TableModel {
  const n = rows.length
  const keys = new Map<string, Ranks>()
  const orders = new Map<string, Uint32Array>()
  let haystack: string[] | null = null
  let natural: Uint32Array | null = null

  const keysOf = (column: SortableColumn<R>): Ranks => {
    let k = keys.get(column.key)
    if (k) return k
    const value = column.sortValue!
    if (column.type === 'number') {
      const values = new Float64Array(n)
      for (let i = 0; i < n; i++) {
        const v = value(rows[i]!)
        values[i] = typeof v === 'number' ? v : NaN
      }
      k = numberRanks(values)
    } else {
      k = textRanks(
        rows.map((r) => {
          const v = value(r)
          return v === null ? null : String(v)
        })
      )
    }
    keys.set(column.key, k)
    return k
  }

  const identity = (): Uint32Array => {
    if (!natural) {
      natural = new Uint32Array(n)
      for (let i = 0; i < n; i++) natural[i] = i
    }
    return natural
  }

  const textColumns = columns.filter((c) => c.filterText || (c.type === 'text' && c.sortValue))
  const buildHaystack = (): string[] =>
    rows.map((r) =>
      textColumns
        .map((c) => {
          const v = c.filterText ? c.filterText(r) : c.sortValue!(r)
          return v === null ? '' : String(v)
        })
        .join('\u0001')
        .toLowerCase()
    )

  return {
    size: n,
    prepare() {
      const next = columns.find((c) => c.sortValue && !keys.has(c.key))
      if (next) keysOf(next)
      else if (!haystack) haystack = buildHaystack()
      return columns.some((c) => c.sortValue && !keys.has(c.key)) || !haystack
    },
    sorted(sort) {
      if (!sort) return identity()
      const column = columns.find((c) => c.key === sort.key)
      if (!column?.sortValue) return identity()
      const id = `${sort.key}\0${sort.dir}`
      const cached = orders.get(id)
      if (cached) return cached
      const order = orderByRank(keysOf(column), sort.dir)
      orders.set(id, order)
      return order
    },
    filter(order, query) {
      const q = query.trim().toLowerCase()
      if (q === '') return order
      haystack ??= buildHaystack()
      const hay = haystack
      const out = new Uint32Array(order.length)
      let m = 0
      for (let i = 0; i < order.length; i++) {
        const row = order[i]!
        if (hay[row]!.includes(q)) out[m++] = row
      }
      return out.subarray(0, m)
    }
  }
}

/** "7,209 rows" or "12 of 7,209 rows". */
export function describeRowCount(shown: number, total: number, noun = 'rows'): string {
  const f = (x: number) => x.toLocaleString('en-US')
  return shown === total ? `${f(total)} ${noun}` : `${f(shown)} of ${f(total)} ${noun}`
}

/** The rows at `order`, e.g. to export what the table shows. */
export function pickRows<R>(rows: readonly R[], order: Uint32Array): R[] {
  const out = new Array<R>(order.length)
  for (let i = 0; i < order.length; i++) out[i] = rows[order[i]!]!
  return out
}

/** What an export of a table takes, said beside its buttons: the rows as shown (filtered, in the shown order). */
export function describeExportScope(shown: number, total: number): string {
  const f = (x: number) => x.toLocaleString('en-US')
  return shown === total ? `Export all ${f(total)} rows` : `Export ${f(shown)} filtered rows`
}

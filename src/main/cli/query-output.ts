/**
 * `stride query`'s text table. A `*` expands to every data structure or function of the run,
 * and most of the cells it brings in are empty (a whole-program session's `[{*},{*},{misses}]`
 * is ~1,400 rows, nearly all zeros, in name order): those whose every metric is 0 or has no
 * value are left out unless asked for all, and counted in a last line. A cell the query names
 * on both axes always prints, zero or not.
 */
import type { QuerySlice } from '../../shared/domain'
import { parseSliceQuery, printCodeItem, printDataItem } from '../../shared/slice-notation'

const show = (v: number | null, ratio: boolean) => (v === null ? '-' : ratio ? v.toFixed(4) : v.toLocaleString('en-US'))

/** The table's lines: the query, the header, the cells' rows, the reduction's row, and what was left out. */
export function sliceTable(s: QuerySlice, all = false): string[] {
  const query = parseSliceQuery(s.query)
  const namedData = new Set(query.data.filter((d) => d.name !== '*' || d.section !== null).map(printDataItem))
  const namedCode = new Set(query.code.filter((c) => c.kind !== 'all').map(printCodeItem))
  const header = ['data', 'code', ...s.metrics]
  const rows: string[][] = []
  let left = 0
  s.data.forEach((d, i) =>
    s.code.forEach((c, j) => {
      const cells = s.cells[i]![j]!
      const named = namedData.has(d) && namedCode.has(c)
      if (!all && !named && cells.every((v) => v === null || v === 0)) left++
      else rows.push([d, c, ...cells.map((v, m) => show(v, s.derived[m]!))])
    })
  )
  rows.push([s.reduction, '', ...s.total.map((v, m) => show(v, s.derived[m]!))])
  const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k]!.length)))
  const line = (r: string[]) => r.map((x, k) => (k < 2 ? x.padEnd(widths[k]!) : x.padStart(widths[k]!))).join('  ')
  const out = [`${s.query}  (${s.reduction}, run ${s.run}${s.resimulated ? ', sections re-simulated' : ''})`, line(header), ...rows.map(line)]
  if (left > 0) out.push(`... and ${left} more cell${left === 1 ? '' : 's'} that * brought in, every metric 0 (--all lists them).`)
  return out
}

/** Data structures ranked by misses (DataTable): exact next to each method's estimate (share, rank), with rho and cost per method. */
import { useMemo } from 'react'
import type { ObjectRow, ObjectsTable as Table } from '../logic/objects-table'
import { describeRho } from '../logic/objects-table'
import { formatPercent } from '../logic/format'
import { DataTable, type DataColumn } from './DataTable'

interface Props {
  table: Table
  level: string
}

export function ObjectsTable({ table, level }: Props) {
  const columns = useMemo<DataColumn<ObjectRow>[]>(() => {
    let max = 1e-9
    for (const r of table.rows) max = Math.max(max, r.exact?.fraction ?? 0)
    return [
      { key: 'name', label: 'Data structure', type: 'text', rowHeader: true, className: 'mono', sortValue: (r) => r.name, cell: (r) => r.name },
      { key: 'kind', label: 'Kind', type: 'text', className: 'muted', sortValue: (r) => r.kind, cell: (r) => r.kind },
      {
        key: 'exact',
        label: 'Exact',
        type: 'number',
        numeric: true,
        className: 'misses-cell',
        sortValue: (r) => r.exact?.fraction ?? null,
        cell: (r) => (
          <>
            {r.exact && <span className="inline-bar" style={{ width: `${(100 * r.exact.fraction) / max}%` }} aria-hidden="true" />}
            <span className="inline-bar-value">{r.exact ? `${formatPercent(r.exact.fraction)} #${r.exact.rank}` : '–'}</span>
          </>
        )
      },
      ...table.methods.map((m, i): DataColumn<ObjectRow> => ({
        key: `method:${m.method}`,
        label: m.method,
        type: 'number',
        numeric: true,
        sortValue: (r) => r.estimates[i]?.fraction ?? null,
        cell: (r) => {
          const e = r.estimates[i]
          return e ? `${formatPercent(e.fraction)} #${e.rank}` : '–'
        },
        cellProps: (r) => {
          const e = r.estimates[i]
          const off = e && r.exact ? Math.abs(e.fraction - r.exact.fraction) : null
          return {
            className: `${e && r.exact && e.rank !== r.exact.rank ? 'rank-moved' : ''}${!e && m.absent[r.name] ? ' absent' : ''}`.trim() || undefined,
            title: off !== null ? `${(off * 100).toFixed(1)} points from exact` : (m.absent[r.name] ?? undefined),
            'data-testid': e ? undefined : 'objects-absent'
          }
        }
      }))
    ]
  }, [table])

  const footer = (
    <>
      <tr data-testid="objects-rho">
        <th scope="row" colSpan={3}>
          Rank error (Spearman's ρ, exact's top 10)
        </th>
        {table.methods.map((m) => (
          <td key={m.method} className="num">
            {describeRho(m.rho)}
          </td>
        ))}
      </tr>
      <tr data-testid="objects-cost">
        <th scope="row" colSpan={3}>
          Cost
        </th>
        {table.methods.map((m) => (
          <td key={m.method} className="num small">
            {m.cost}
          </td>
        ))}
      </tr>
    </>
  )

  return (
    <DataTable
      rows={table.rows}
      columns={columns}
      rowKey={(r) => r.name}
      label={`Data structures ranked by ${level} misses`}
      testId="objects-table"
      rowTestId="objects-row"
      noun="data structures"
      className="objects-table"
      wrapClassName="objects-table-wrap"
      footer={table.methods.length > 0 ? footer : undefined}
    />
  )
}

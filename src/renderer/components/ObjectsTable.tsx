/** Data structures ranked by misses: exact next to each method's estimate (share, rank), with rho and cost per method. */
import type { ObjectsTable as Table } from '../logic/objects-table'
import { describeRho } from '../logic/objects-table'
import { formatPercent } from '../logic/format'

interface Props {
  table: Table
  level: string
}

export function ObjectsTable({ table, level }: Props) {
  const max = Math.max(1e-9, ...table.rows.map((r) => r.exact?.fraction ?? 0))
  return (
    <table className="objects-table" aria-label={`Data structures ranked by ${level} misses`} data-testid="objects-table">
      <thead>
        <tr>
          <th scope="col">Data structure</th>
          <th scope="col">Kind</th>
          <th scope="col" className="num">
            Exact
          </th>
          {table.methods.map((m) => (
            <th scope="col" className="num" key={m.method}>
              {m.method}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {table.rows.map((r) => (
          <tr key={r.name} data-testid="objects-row">
            <th scope="row" className="mono">
              {r.name}
            </th>
            <td className="muted">{r.kind}</td>
            <td className="num misses-cell">
              {r.exact && <span className="inline-bar" style={{ width: `${(100 * r.exact.fraction) / max}%` }} aria-hidden="true" />}
              <span className="inline-bar-value">{r.exact ? `${formatPercent(r.exact.fraction)} #${r.exact.rank}` : '–'}</span>
            </td>
            {r.estimates.map((e, i) => {
              const off = e && r.exact ? Math.abs(e.fraction - r.exact.fraction) : null
              return (
                <td
                  key={table.methods[i]!.method}
                  className={`num ${e && r.exact && e.rank !== r.exact.rank ? 'rank-moved' : ''}${!e && table.methods[i]!.absent[r.name] ? ' absent' : ''}`}
                  title={off !== null ? `${(off * 100).toFixed(1)} points from exact` : (table.methods[i]!.absent[r.name] ?? undefined)}
                  data-testid={e ? undefined : 'objects-absent'}
                >
                  {e ? `${formatPercent(e.fraction)} #${e.rank}` : '–'}
                </td>
              )
            })}
          </tr>
        ))}
      </tbody>
      <tfoot>
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
      </tfoot>
    </table>
  )
}

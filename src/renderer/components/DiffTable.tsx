/** A table of per-line or per-data-structure changes between two runs; improvements first. */
import { useState } from 'react'
import type { DiffRow } from '../../shared/run-diff'
import { formatPercent } from '../logic/format'
import { diffExportTable } from '../logic/run-diff'
import { ExportMenu } from './ExportMenu'

type SortKey = 'key' | 'baseMisses' | 'misses' | 'delta' | 'deltaRatio'

interface Props {
  title: string
  rows: DiffRow[]
  keyLabel: string
  testId: string
  formatKey(row: DiffRow): string
  onActivate?(row: DiffRow): void
}

const signed = (n: number) => `${n > 0 ? '+' : ''}${n.toLocaleString('en-US')}`
const signedPct = (r: number | null) => (r === null ? '–' : `${r > 0 ? '+' : ''}${(r * 100).toFixed(1)} pt`)

export function DiffTable({ title, rows, keyLabel, testId, formatKey, onActivate }: Props) {
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 }>({ key: 'delta', dir: 1 })
  const changed = rows.filter((r) => r.baseMisses > 0 || r.misses > 0)
  const sorted = [...changed].sort((a, b) => {
    const va = sort.key === 'key' ? formatKey(a) : (a[sort.key] ?? 0)
    const vb = sort.key === 'key' ? formatKey(b) : (b[sort.key] ?? 0)
    return (va < vb ? -1 : va > vb ? 1 : 0) * sort.dir
  })
  const header = (key: SortKey, label: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort-button" onClick={() => setSort((s) => ({ key, dir: s.key === key ? ((-s.dir) as 1 | -1) : key === 'key' ? 1 : -1 }))}>
        {label}
      </button>
    </th>
  )
  return (
    <section className="table-pane" aria-label={title}>
      <div className="pane-header">
        <h3 className="pane-title">{title}</h3>
        <span className="muted small">{changed.length.toLocaleString('en-US')} with misses</span>
        <ExportMenu title={`stride-diff-${title}`} table={() => diffExportTable(sorted, keyLabel)} testId={`${testId}-export`} />
      </div>
      <div className="reference-table-wrap">
        <table className="reference-table diff-table" data-testid={testId}>
          <thead>
            <tr>
              {header('key', keyLabel)}
              {header('baseMisses', 'Baseline')}
              {header('misses', 'This run')}
              {header('delta', 'Δ misses')}
              <th scope="col">Miss ratio</th>
              {header('deltaRatio', 'Δ ratio')}
            </tr>
          </thead>
          <tbody>
            {sorted.map((r) => (
              <tr
                key={r.key}
                data-testid={`${testId}-row`}
                data-key={formatKey(r)}
                data-delta={r.delta}
                className={`${r.delta < 0 ? 'is-better' : r.delta > 0 ? 'is-worse' : ''} ${onActivate ? 'is-clickable' : ''}`}
                tabIndex={onActivate ? 0 : undefined}
                onClick={() => onActivate?.(r)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && onActivate) onActivate(r)
                }}
              >
                <td className="mono">{formatKey(r)}</td>
                <td className="num">{r.baseMisses.toLocaleString('en-US')}</td>
                <td className="num">{r.misses.toLocaleString('en-US')}</td>
                <td className="num delta">{signed(r.delta)}</td>
                <td className="num">
                  {formatPercent(r.baseRatio)} → {formatPercent(r.ratio)}
                </td>
                <td className="num delta">{signedPct(r.deltaRatio)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}

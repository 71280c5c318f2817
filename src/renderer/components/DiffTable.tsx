/** A table of per-line or per-data-structure changes between two runs (DataTable); improvements first. */
import { useMemo } from 'react'
import type { DiffRow } from '../../shared/run-diff'
import type { TableSort } from '../logic/data-table'
import { formatPercent } from '../logic/format'
import { diffExportTable } from '../logic/run-diff'
import { DataTable, type DataColumn } from './DataTable'

interface Props {
  title: string
  rows: DiffRow[]
  keyLabel: string
  testId: string
  formatKey(row: DiffRow): string
  onActivate?(row: DiffRow): void
}

/** A diff row with its key as shown (the sort and the filter read it). */
interface Item {
  row: DiffRow
  label: string
}

const signed = (n: number) => `${n > 0 ? '+' : ''}${n.toLocaleString('en-US')}`
const signedPct = (r: number | null) => (r === null ? '–' : `${r > 0 ? '+' : ''}${(r * 100).toFixed(1)} pt`)
const DEFAULT_SORT: TableSort = { key: 'delta', dir: 'asc' }

export function DiffTable({ title, rows, keyLabel, testId, formatKey, onActivate }: Props) {
  // formatKey is the same function in effect on every render: the items follow the rows.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const items = useMemo<Item[]>(() => rows.filter((r) => r.baseMisses > 0 || r.misses > 0).map((row) => ({ row, label: formatKey(row) })), [rows])
  const columns = useMemo<DataColumn<Item>[]>(
    () => [
      { key: 'key', label: keyLabel, type: 'text', sortValue: (i) => i.label, className: 'mono', cell: (i) => i.label },
      { key: 'baseMisses', label: 'Baseline', type: 'number', numeric: true, sortValue: (i) => i.row.baseMisses, cell: (i) => i.row.baseMisses.toLocaleString('en-US') },
      { key: 'misses', label: 'This run', type: 'number', numeric: true, sortValue: (i) => i.row.misses, cell: (i) => i.row.misses.toLocaleString('en-US') },
      { key: 'delta', label: 'Δ misses', type: 'number', numeric: true, sortValue: (i) => i.row.delta, className: 'delta', cell: (i) => signed(i.row.delta) },
      {
        key: 'ratio',
        label: 'Miss ratio',
        title: 'Sorted by this run’s miss ratio',
        type: 'number',
        numeric: true,
        sortValue: (i) => i.row.ratio,
        cell: (i) => `${formatPercent(i.row.baseRatio)} → ${formatPercent(i.row.ratio)}`
      },
      { key: 'deltaRatio', label: 'Δ ratio', type: 'number', numeric: true, sortValue: (i) => i.row.deltaRatio, className: 'delta', cell: (i) => signedPct(i.row.deltaRatio) }
    ],
    [keyLabel]
  )
  return (
    <section className="table-pane" aria-label={title}>
      <div className="pane-header">
        <h3 className="pane-title">{title}</h3>
        <span className="muted small">{items.length.toLocaleString('en-US')} with misses</span>
      </div>
      <DataTable
        rows={items}
        columns={columns}
        rowKey={(i) => i.row.key}
        defaultSort={DEFAULT_SORT}
        label={title}
        testId={testId}
        rowTestId={`${testId}-row`}
        noun={keyLabel === 'Line' ? 'lines' : 'data structures'}
        className="reference-table diff-table"
        wrapClassName="reference-table-wrap"
        onActivate={onActivate ? (i) => onActivate(i.row) : undefined}
        exportTable={(shown) =>
          diffExportTable(
            shown.map((i) => i.row),
            keyLabel
          )
        }
        exportTitle={`stride-diff-${title}`}
        exportTestId={`${testId}-export`}
        rowAttributes={(i) => ({
          className: i.row.delta < 0 ? 'is-better' : i.row.delta > 0 ? 'is-worse' : '',
          'data-key': i.label,
          'data-delta': i.row.delta
        })}
      />
    </section>
  )
}

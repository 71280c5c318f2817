/**
 * Access points (references) of a run for one level, on the shared DataTable: virtualized,
 * sortable by any column, filtered by id, location or source text. Rows use a roving tab stop:
 * Tab enters the table once, arrows move, Enter jumps to the source line.
 */
import { useMemo } from 'react'
import type { TableSort } from '../logic/data-table'
import { formatCount, formatPercent } from '../logic/format'
import { REFERENCE_SORT_COLUMNS, referenceExportTable, type ReferenceColumnKey, type ReferenceRow } from '../logic/references'
import { DataTable, type DataColumn } from './DataTable'

/**
 * Reads and writes are the program's; hits, misses and miss % are the level's own, over the
 * accesses that reached it (below L1: the misses of the level above). The headers say which.
 */
function columnLabel(key: ReferenceColumnKey, label: string, level: string): string {
  if (key === 'reads' || key === 'writes') return `Program ${label.toLowerCase()}`
  if (key === 'hits' || key === 'misses' || key === 'ratio') return `${level} ${label.toLowerCase()}`
  return label
}

const LABELS: Record<ReferenceColumnKey, string> = {
  id: 'Reference',
  location: 'Location',
  source: 'Source',
  reads: 'Reads',
  writes: 'Writes',
  hits: 'Hits',
  misses: 'Misses',
  ratio: 'Miss %'
}

const DEFAULT_SORT: TableSort = { key: 'misses', dir: 'desc' }

/**
 * The key columns first (which reference, its misses and miss ratio), so a narrow pane shows
 * them without scrolling; the Columns menu hides or moves the others, remembered.
 */
const DEFAULT_ORDER: readonly ReferenceColumnKey[] = ['id', 'misses', 'ratio', 'location', 'source', 'reads', 'writes', 'hits']
const REQUIRED = new Set<ReferenceColumnKey>(['id', 'misses'])
const COLUMNS_KEY = 'stride.columns.references'

function cellOf(key: ReferenceColumnKey, maxMisses: number): Pick<DataColumn<ReferenceRow>, 'cell' | 'cellProps' | 'className'> {
  switch (key) {
    case 'id':
      return { cell: (r) => <code>{r.id}</code>, cellProps: (r) => ({ title: `${r.id}: ${[r.variable && `variable ${r.variable}`, r.function && `in ${r.function}`, r.kind].filter(Boolean).join(', ')}` }) }
    case 'location':
      return { className: 'location-cell', cell: (r) => <code>{r.location}</code>, cellProps: (r) => ({ title: r.file ? `${r.file}${r.line !== null ? `:${r.line}` : ''} (${r.pc})` : r.pc }) }
    case 'source':
      return { className: 'source-expr', cell: (r) => <code>{r.sourceExpr ?? ''}</code>, cellProps: (r) => ({ title: r.disasm ? `${r.pc}: ${r.disasm}` : r.pc }) }
    case 'misses':
      return {
        className: 'misses-cell',
        cell: (r) => (
          <>
            <span className="inline-bar" style={{ width: `${(100 * r.misses) / maxMisses}%` }} aria-hidden="true" />
            <span className="inline-bar-value">{formatCount(r.misses)}</span>
          </>
        )
      }
    case 'ratio':
      return { cell: (r) => formatPercent(r.ratio) }
    default:
      return { cell: (r) => formatCount(r[key]) }
  }
}

interface Props {
  rows: ReferenceRow[]
  level: string
  selectedId: string | null
  selectedLine: { file: string; line: number } | null
  onActivate(row: ReferenceRow): void
  /** Base of the export file names. */
  exportTitle: string
  /** Sessions of several threads: each reference's accesses per thread (getThreadBreakdown), shown as a column. */
  threadsByReference?: ReadonlyMap<string, ReadonlyArray<{ thread: number; accesses: number }>> | null
}

/** The per-thread column: "2: 20,000 · 3: 20,000", sorted by how many threads make the accesses. */
function threadsColumn(byReference: ReadonlyMap<string, ReadonlyArray<{ thread: number; accesses: number }>>): DataColumn<ReferenceRow> {
  const text = (r: ReferenceRow) => (byReference.get(r.id) ?? []).map((t) => `${t.thread}: ${formatCount(t.accesses)}`).join(' · ')
  return {
    key: 'threads',
    type: 'number',
    label: 'Threads: accesses',
    title: 'Accesses of each thread (exact, from the trace)',
    sortValue: (r) => byReference.get(r.id)?.length ?? 0,
    filterText: text,
    cell: (r) => <span className="small">{text(r)}</span>
  }
}

export function ReferenceTable({ rows, level, selectedId, selectedLine, onActivate, exportTitle, threadsByReference = null }: Props) {
  const maxMisses = useMemo(() => {
    let m = 1
    for (const r of rows) if (r.misses > m) m = r.misses
    return m
  }, [rows])
  const columns = useMemo<DataColumn<ReferenceRow>[]>(
    () => [
      ...DEFAULT_ORDER.map((k) => REFERENCE_SORT_COLUMNS.find((c) => c.key === k)!).map((c) => ({
        ...c,
        required: REQUIRED.has(c.key),
        label: columnLabel(c.key, LABELS[c.key], level),
        numeric: c.type === 'number',
        ...cellOf(c.key, maxMisses)
      })),
      ...(threadsByReference ? [threadsColumn(threadsByReference)] : [])
    ],
    [level, maxMisses, threadsByReference]
  )
  // The row brought into view: the selected reference, else the first on the selected line.
  const activeKey = useMemo(() => {
    if (selectedId !== null) return selectedId
    if (selectedLine === null) return null
    return rows.find((r) => r.file === selectedLine.file && r.line === selectedLine.line)?.id ?? null
  }, [rows, selectedId, selectedLine])

  return (
    <DataTable
      rows={rows}
      columns={columns}
      rowKey={(r) => r.id}
      defaultSort={DEFAULT_SORT}
      label={`Access points, ${level}`}
      testId="references-table"
      columnsKey={COLUMNS_KEY}
      rowTestId="reference-row"
      noun="access points"
      className="reference-table"
      wrapClassName="reference-table-wrap"
      activeKey={activeKey}
      onActivate={onActivate}
      exportTable={(shown) => referenceExportTable(shown, level)}
      exportTitle={exportTitle}
      exportTestId="references-export"
      empty={<p className="muted pad">This run has no access points.</p>}
      rowAttributes={(r) => {
        const onSelectedLine = selectedLine !== null && r.file === selectedLine.file && r.line === selectedLine.line
        const selected = selectedId === r.id || (selectedId === null && onSelectedLine)
        return {
          'aria-selected': selected,
          className: `${selected ? 'is-selected' : ''} ${onSelectedLine ? 'is-on-line' : ''}`,
          'data-reference': r.id,
          'data-location': r.file !== null && r.line !== null ? `${r.file}:${r.line}` : r.pc
        }
      }}
    />
  )
}

/**
 * Access points (references) of a run for one level, sortable by any column. Rows use a
 * roving tab stop: Tab enters the table once, arrows move, Enter jumps to the source line.
 */
import { useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { formatCount, formatPercent } from '../logic/format'
import { sortReferenceRows, type ReferenceRow, type ReferenceSort, type ReferenceSortKey } from '../logic/references'

/**
 * Reads and writes are the program's; hits, misses and miss % are the level's own, over the
 * accesses that reached it (below L1: the misses of the level above). The headers say which.
 */
function columnLabel(key: ReferenceSortKey, label: string, level: string): string {
  if (key === 'reads' || key === 'writes') return `Program ${label.toLowerCase()}`
  if (key === 'hits' || key === 'misses' || key === 'ratio') return `${level} ${label.toLowerCase()}`
  return label
}

const COLUMNS: { key: ReferenceSortKey; label: string; numeric: boolean }[] = [
  { key: 'id', label: 'Reference', numeric: false },
  { key: 'location', label: 'Location', numeric: false },
  { key: 'source', label: 'Source', numeric: false },
  { key: 'reads', label: 'Reads', numeric: true },
  { key: 'writes', label: 'Writes', numeric: true },
  { key: 'hits', label: 'Hits', numeric: true },
  { key: 'misses', label: 'Misses', numeric: true },
  { key: 'ratio', label: 'Miss %', numeric: true }
]

/** Rendering thousands of rows is still cheap; beyond this we ask first. */
const INITIAL_ROWS = 500

interface Props {
  rows: ReferenceRow[]
  level: string
  selectedId: string | null
  selectedLine: { file: string; line: number } | null
  onActivate(row: ReferenceRow): void
}

export function ReferenceTable({ rows, level, selectedId, selectedLine, onActivate }: Props) {
  const [sort, setSort] = useState<ReferenceSort>({ key: 'misses', dir: 'desc' })
  const [focus, setFocus] = useState(0)
  const [showAll, setShowAll] = useState(false)
  const body = useRef<HTMLTableSectionElement>(null)
  const sorted = useMemo(() => sortReferenceRows(rows, sort), [rows, sort])
  const shown = showAll ? sorted : sorted.slice(0, INITIAL_ROWS)
  const maxMisses = useMemo(() => Math.max(1, ...rows.map((r) => r.misses)), [rows])

  const onSort = (key: ReferenceSortKey, numeric: boolean) =>
    setSort((s) => (s.key === key ? { key, dir: s.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: numeric ? 'desc' : 'asc' }))

  const moveFocus = (i: number) => {
    const next = Math.max(0, Math.min(shown.length - 1, i))
    setFocus(next)
    body.current?.querySelectorAll<HTMLTableRowElement>('tr')[next]?.focus()
  }

  const onKeyDown = (e: KeyboardEvent, i: number, row: ReferenceRow) => {
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveFocus(i + 1),
      ArrowUp: () => moveFocus(i - 1),
      Home: () => moveFocus(0),
      End: () => moveFocus(shown.length - 1),
      Enter: () => onActivate(row),
      ' ': () => onActivate(row)
    }
    const act = keys[e.key]
    if (act) {
      e.preventDefault()
      act()
    }
  }

  if (rows.length === 0) return <p className="muted pad">This run has no access points.</p>

  return (
    <div className="reference-table-wrap">
      <table className="reference-table" role="grid" aria-label={`Access points, ${level}`} data-testid="references-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th
                key={c.key}
                scope="col"
                className={c.numeric ? 'num' : ''}
                aria-sort={sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
              >
                <button type="button" className="sort-button" onClick={() => onSort(c.key, c.numeric)} data-testid={`sort-${c.key}`}>
                  {columnLabel(c.key, c.label, level)}
                  <span className="sort-mark" aria-hidden="true">
                    {sort.key === c.key ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
                  </span>
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={body}>
          {shown.map((r, i) => {
            const onSelectedLine = selectedLine !== null && r.file === selectedLine.file && r.line === selectedLine.line
            const selected = selectedId === r.id || (selectedId === null && onSelectedLine)
            return (
              <tr
                key={r.id}
                tabIndex={i === Math.min(focus, shown.length - 1) ? 0 : -1}
                aria-selected={selected}
                className={`${selected ? 'is-selected' : ''} ${onSelectedLine ? 'is-on-line' : ''}`}
                onClick={() => {
                  setFocus(i)
                  onActivate(r)
                }}
                onKeyDown={(e) => onKeyDown(e, i, r)}
                data-testid="reference-row"
                data-reference={r.id}
                data-location={r.file !== null && r.line !== null ? `${r.file}:${r.line}` : r.pc}
              >
                <td title={[r.variable && `variable ${r.variable}`, r.function && `in ${r.function}`, r.kind].filter(Boolean).join(', ')}>
                  <code>{r.id}</code>
                </td>
                <td title={r.file ? `${r.file}${r.line !== null ? `:${r.line}` : ''} (${r.pc})` : r.pc}>
                  <code>{r.location}</code>
                </td>
                <td className="source-expr" title={r.disasm ? `${r.pc}: ${r.disasm}` : r.pc}>
                  <code>{r.sourceExpr ?? ''}</code>
                </td>
                <td className="num">{formatCount(r.reads)}</td>
                <td className="num">{formatCount(r.writes)}</td>
                <td className="num">{formatCount(r.hits)}</td>
                <td className="num misses-cell">
                  <span className="inline-bar" style={{ width: `${(100 * r.misses) / maxMisses}%` }} aria-hidden="true" />
                  <span className="inline-bar-value">{formatCount(r.misses)}</span>
                </td>
                <td className="num">{formatPercent(r.ratio)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
      {!showAll && sorted.length > INITIAL_ROWS && (
        <button type="button" className="link-button pad" onClick={() => setShowAll(true)}>
          Show all {formatCount(sorted.length)} access points
        </button>
      )}
    </div>
  )
}

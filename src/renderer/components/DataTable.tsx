/**
 * The one table of the app: virtualized (only the rows in view are in the DOM, with spacer rows
 * above and below), sorted by clicking a column header (a button: Enter or Space by keyboard;
 * aria-sort says how), filtered by a box above it (substring of the text columns, typed with a
 * 100 ms debounce, "N of M rows" beside it), rows with a roving tab stop (Tab enters the table
 * once, arrows, Page Up/Down, Home and End move, Enter or Space activates). Sorting and
 * filtering are `logic/data-table.ts`: row indexes, never re-created rows; sort keys are
 * computed in idle time after the rows arrive, so the first click on a header only sorts.
 * Exports (CSV/JSON) take the rows as shown: filtered and in this order, which the menu says.
 * With `columnsKey`, a Columns menu hides and reorders columns (`logic/column-layout.ts`; key
 * columns stay), remembered in localStorage under that key; the first column shown stays in
 * view when the table scrolls sideways.
 */
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type HTMLAttributes, type KeyboardEvent, type ReactNode, type TdHTMLAttributes } from 'react'
import { moveColumn, reconcileLayout, toggleColumn, visibleColumns, type ColumnLayout } from '../logic/column-layout'
import { createTableModel, describeRowCount, describeExportScope, nextSort, pickRows, type SortableColumn, type TableSort } from '../logic/data-table'
import type { ExportTable } from '../logic/export'
import { ExportMenu } from './ExportMenu'

type DataAttributes = { [k: `data-${string}`]: string | number | boolean | undefined }
export type RowAttributes = HTMLAttributes<HTMLTableRowElement> & DataAttributes & { 'aria-selected'?: boolean }
export type CellAttributes = TdHTMLAttributes<HTMLTableCellElement> & DataAttributes

export interface DataColumn<R> extends SortableColumn<R> {
  /** Header text (also its accessible name). */
  label: string
  title?: string
  /** Right-aligned (numbers). */
  numeric?: boolean
  /** The cell is the row's header (`<th scope="row">`). */
  rowHeader?: boolean
  className?: string
  /** A key column: the Columns menu cannot hide it. */
  required?: boolean
  cell(row: R): ReactNode
  cellProps?(row: R): CellAttributes
}

interface Props<R> {
  rows: readonly R[]
  /** Stable between renders (a module constant or memoized): the sort keys are cached per rows and columns. */
  columns: ReadonlyArray<DataColumn<R>>
  rowKey(row: R): string
  /** The order first shown; null: the rows' own order. */
  defaultSort?: TableSort | null
  label: string
  testId: string
  rowTestId: string
  /** What the count calls rows: "access points". */
  noun?: string
  className?: string
  wrapClassName?: string
  rowAttributes?(row: R): RowAttributes
  onActivate?(row: R): void
  onOpen?(row: R): void
  /** A row to bring into view (and give the tab stop) when it changes, e.g. the selection. */
  activeKey?: string | null
  footer?: ReactNode
  /** CSV/JSON of the rows as shown (filtered, in this order). */
  exportTable?(rows: R[]): ExportTable
  exportTitle?: string
  exportTestId?: string
  /** Estimated row height in px (rows are measured once drawn). */
  rowHeight?: number
  /** Shown instead of the table when there are no rows at all. */
  empty?: ReactNode
  /** Offer the Columns menu, the choice remembered under this localStorage key. */
  columnsKey?: string
}

function readLayout(key: string | undefined, columns: ReadonlyArray<DataColumn<unknown>>): ColumnLayout {
  let stored: unknown = null
  try {
    if (key) stored = JSON.parse(localStorage.getItem(key) ?? 'null')
  } catch {
    // unreadable or not JSON: the default layout
  }
  return reconcileLayout(stored, columns)
}

/** Show, hide and move columns: a disclosure with one row per column. */
function ColumnsMenu<R>({ columns, layout, onChange, testId }: { columns: ReadonlyArray<DataColumn<R>>; layout: ColumnLayout; onChange(l: ColumnLayout): void; testId: string }) {
  const byKey = new Map(columns.map((c) => [c.key, c]))
  return (
    <details className="columns-menu" data-testid={`${testId}-columns`}>
      <summary className="button small">Columns</summary>
      <ul className="columns-menu-list" aria-label="Columns shown, in order">
        {layout.order.map((k, i) => {
          const c = byKey.get(k)
          if (!c) return null
          return (
            <li key={k} data-column={k}>
              <label title={c.required ? 'A key column: always shown' : undefined}>
                <input type="checkbox" checked={!layout.hidden.includes(k)} disabled={c.required} onChange={() => onChange(toggleColumn(layout, columns, k))} data-testid={`column-shown-${k}`} />
                {c.label}
              </label>
              <button type="button" className="icon-button" aria-label={`Move ${c.label} left`} disabled={i === 0} onClick={() => onChange(moveColumn(layout, k, -1))} data-testid={`column-left-${k}`}>
                ↑
              </button>
              <button type="button" className="icon-button" aria-label={`Move ${c.label} right`} disabled={i === layout.order.length - 1} onClick={() => onChange(moveColumn(layout, k, 1))} data-testid={`column-right-${k}`}>
                ↓
              </button>
            </li>
          )
        })}
      </ul>
    </details>
  )
}

const FILTER_DEBOUNCE_MS = 100

/** Runs `step` in idle time until it says it is done. */
function useIdleLoop(step: () => boolean): void {
  useEffect(() => {
    let cancelled = false
    let handle = 0
    const idle = typeof requestIdleCallback === 'function'
    const schedule = () => {
      handle = idle ? requestIdleCallback(tick, { timeout: 2000 }) : window.setTimeout(tick, 50)
    }
    const tick = () => {
      if (!cancelled && step()) schedule()
    }
    schedule()
    return () => {
      cancelled = true
      if (idle) cancelIdleCallback(handle)
      else clearTimeout(handle)
    }
  }, [step])
}

export function DataTable<R>(props: Props<R>) {
  const { rows, columns: allColumns, rowKey, label, testId, rowTestId, noun = 'rows', onActivate, onOpen, rowAttributes, activeKey = null, columnsKey } = props
  const [layout, setLayout] = useState<ColumnLayout>(() => readLayout(columnsKey, allColumns as ReadonlyArray<DataColumn<unknown>>))
  // Columns relabelled (another cache level) keep the layout; another set of keys reconciles it.
  useEffect(() => setLayout((l) => reconcileLayout(l, allColumns)), [allColumns])
  const changeLayout = (l: ColumnLayout) => {
    setLayout(l)
    try {
      if (columnsKey) localStorage.setItem(columnsKey, JSON.stringify(l))
    } catch {
      // not remembered, still applied
    }
  }
  const columns = useMemo(() => (columnsKey ? visibleColumns(allColumns, layout) : allColumns), [allColumns, layout, columnsKey])
  const [sort, setSort] = useState<TableSort | null>(props.defaultSort ?? null)
  const [text, setText] = useState('')
  const [query, setQuery] = useState('')
  const [focus, setFocus] = useState(0)
  const [headHeight, setHeadHeight] = useState(0)
  const scroller = useRef<HTMLDivElement>(null)
  const head = useRef<HTMLTableSectionElement>(null)
  const body = useRef<HTMLTableSectionElement>(null)
  const pendingFocus = useRef<number | null>(null)

  useEffect(() => {
    const t = setTimeout(() => setQuery(text), FILTER_DEBOUNCE_MS)
    return () => clearTimeout(t)
  }, [text])

  // Sorting and filtering read every column, shown or not (a hidden column's text still filters).
  const model = useMemo(() => createTableModel(rows, allColumns), [rows, allColumns])
  const prepare = useMemo(() => () => model.prepare(), [model])
  useIdleLoop(prepare)
  const order = useMemo(() => model.sorted(sort), [model, sort])
  const view = useMemo(() => model.filter(order, query), [model, order, query])
  const focusAt = Math.max(0, Math.min(focus, view.length - 1))

  const virtualizer = useVirtualizer({
    count: view.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => props.rowHeight ?? 27,
    overscan: 12,
    scrollMargin: headHeight,
    scrollPaddingStart: headHeight,
    useFlushSync: false
  })
  const items = virtualizer.getVirtualItems()
  const padTop = items.length > 0 ? items[0]!.start - headHeight : 0
  const padBottom = items.length > 0 ? Math.max(0, virtualizer.getTotalSize() - (items[items.length - 1]!.end - headHeight)) : 0

  useLayoutEffect(() => {
    const h = head.current?.offsetHeight ?? 0
    if (h !== headHeight) setHeadHeight(h)
    const i = pendingFocus.current
    if (i === null) return
    const el = body.current?.querySelector<HTMLTableRowElement>(`tr[data-index="${i}"]`)
    if (el) {
      el.focus({ preventScroll: true })
      pendingFocus.current = null
    }
  })

  // An outside selection (a source line, an evictor node) brings its row into view.
  useEffect(() => {
    if (activeKey === null) return
    for (let i = 0; i < view.length; i++) {
      if (rowKey(rows[view[i]!]!) === activeKey) {
        setFocus(i)
        virtualizer.scrollToIndex(i, { align: 'auto' })
        return
      }
    }
    // Only when the selection changes, not when the user sorts or filters away from it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [activeKey])

  const moveFocus = (i: number) => {
    const next = Math.max(0, Math.min(view.length - 1, i))
    setFocus(next)
    pendingFocus.current = next
    virtualizer.scrollToIndex(next, { align: 'auto' })
  }
  const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 400) / (props.rowHeight ?? 27)) - 1)
  const onKeyDown = (e: KeyboardEvent, i: number, row: R) => {
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveFocus(i + 1),
      ArrowUp: () => moveFocus(i - 1),
      PageDown: () => moveFocus(i + page),
      PageUp: () => moveFocus(i - page),
      Home: () => moveFocus(0),
      End: () => moveFocus(view.length - 1)
    }
    if (onActivate) {
      keys.Enter = () => onActivate(row)
      keys[' '] = () => onActivate(row)
    }
    const act = keys[e.key]
    if (act) {
      e.preventDefault()
      act()
    }
  }

  if (rows.length === 0 && props.empty) return <>{props.empty}</>

  const shown = describeRowCount(view.length, rows.length, noun)
  return (
    <div className="data-table">
      <div className="data-table-toolbar">
        <input
          type="search"
          className="data-table-filter"
          placeholder="Filter…"
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-label={`Filter ${label}`}
          aria-controls={`${testId}-table`}
          spellCheck={false}
          data-testid={`${testId}-filter`}
        />
        <span className="muted small data-table-count" role="status" aria-live="polite" data-testid={`${testId}-count`} data-shown={view.length} data-total={rows.length}>
          {shown}
        </span>
        {columnsKey && <ColumnsMenu columns={allColumns} layout={layout} onChange={changeLayout} testId={testId} />}
        {props.exportTable && (
          <ExportMenu
            title={props.exportTitle ?? label}
            label={describeExportScope(view.length, rows.length)}
            hint="CSV and JSON take the rows as shown: filtered, in the table’s order"
            table={() => props.exportTable!(pickRows(rows, view))}
            testId={props.exportTestId}
          />
        )}
      </div>
      <div className={`data-table-wrap ${props.wrapClassName ?? ''}`} ref={scroller}>
        <table
          id={`${testId}-table`}
          className={props.className}
          role={onActivate ? 'grid' : undefined}
          aria-label={label}
          aria-rowcount={view.length + 1 + (props.footer ? 1 : 0)}
          data-testid={testId}
          data-sort={sort ? `${sort.key}:${sort.dir}` : ''}
          data-rows={view.length}
        >
          <thead ref={head}>
            <tr aria-rowindex={1}>
              {columns.map((c, i) => (
                <th
                  key={c.key}
                  scope="col"
                  className={[c.numeric ? 'num' : '', i === 0 && columnsKey ? 'is-pinned' : ''].filter(Boolean).join(' ') || undefined}
                  data-column={c.key}
                  title={c.title}
                  aria-sort={!c.sortValue ? undefined : sort?.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
                >
                  {c.sortValue ? (
                    <button type="button" className="sort-button" onClick={() => setSort((s) => nextSort(s, c.key, c.type))} data-testid={`sort-${c.key}`}>
                      {c.label}
                      <span className="sort-mark" aria-hidden="true">
                        {sort?.key === c.key ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
                      </span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody ref={body}>
            {padTop > 0 && (
              <tr className="data-table-spacer" aria-hidden="true" style={{ height: padTop }}>
                <td colSpan={columns.length} />
              </tr>
            )}
            {items.map((item) => {
              const row = rows[view[item.index]!]!
              const attrs = rowAttributes?.(row) ?? {}
              return (
                <tr
                  key={rowKey(row)}
                  ref={virtualizer.measureElement}
                  data-index={item.index}
                  aria-rowindex={item.index + 2}
                  tabIndex={item.index === focusAt ? 0 : -1}
                  {...attrs}
                  className={`${attrs.className ?? ''}${onActivate ? ' is-clickable' : ''}`}
                  onClick={() => {
                    setFocus(item.index)
                    onActivate?.(row)
                  }}
                  onDoubleClick={onOpen ? () => onOpen(row) : undefined}
                  onKeyDown={(e) => onKeyDown(e, item.index, row)}
                  data-testid={rowTestId}
                >
                  {columns.map((c, i) => {
                    const cellProps = c.cellProps?.(row) ?? {}
                    const className = [c.numeric ? 'num' : '', c.className ?? '', cellProps.className ?? '', i === 0 && columnsKey ? 'is-pinned' : ''].filter(Boolean).join(' ') || undefined
                    return c.rowHeader ? (
                      <th key={c.key} scope="row" {...cellProps} className={className}>
                        {c.cell(row)}
                      </th>
                    ) : (
                      <td key={c.key} {...cellProps} className={className}>
                        {c.cell(row)}
                      </td>
                    )
                  })}
                </tr>
              )
            })}
            {padBottom > 0 && (
              <tr className="data-table-spacer" aria-hidden="true" style={{ height: padBottom }}>
                <td colSpan={columns.length} />
              </tr>
            )}
            {view.length === 0 && rows.length > 0 && (
              <tr className="data-table-none">
                <td colSpan={columns.length} className="muted" data-testid={`${testId}-no-match`}>
                  No {noun} match “{query}”.
                </td>
              </tr>
            )}
          </tbody>
          {props.footer && <tfoot>{props.footer}</tfoot>}
        </table>
      </div>
    </div>
  )
}

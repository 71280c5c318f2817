/**
 * SIGMA-style 3-D query slices (section 3.3): pick a sub-space of data structures x code
 * regions x metrics by clicking or by typing the notation (the two stay in sync), reduce it
 * (sum, min, max) and show it as a table, heatmap, bar chart, histogram or pie.
 */
import { useEffect, useMemo, useRef, useState } from 'react'
import type { QuerySlice, RunReport, SliceReduction } from '../../shared/domain'
import { DataTable, type DataColumn } from '../components/DataTable'
import { ExportMenu } from '../components/ExportMenu'
import { Segmented } from '../components/Segmented'
import { SliceAxisPicker } from '../components/SliceAxisPicker'
import { SliceChart } from '../components/SliceChart'
import { computeSliceAxes, computeSliceTable, formatSliceValue } from '../logic/query-slice'
import { useQuery, type SliceDisplay } from '../state/query-store'
import { useSession } from '../state/session-store'

const REDUCTIONS: { value: SliceReduction; label: string }[] = [
  { value: 'sum', label: 'Sum' },
  { value: 'min', label: 'Min' },
  { value: 'max', label: 'Max' }
]
const DISPLAYS: { value: SliceDisplay; label: string }[] = [
  { value: 'table', label: 'Table' },
  { value: 'heatmap', label: 'Heatmap' },
  { value: 'bar', label: 'Bar' },
  { value: 'histogram', label: 'Histogram' },
  { value: 'pie', label: 'Pie' }
]

export function QueryView({ report }: { report: RunReport }) {
  const q = useQuery()
  const path = useSession((s) => s.path)
  const run = useSession((s) => s.run)
  const axes = useMemo(() => computeSliceAxes(report), [report])
  const svg = useRef<SVGSVGElement>(null)
  const input = useRef<HTMLInputElement>(null)
  const [copied, setCopied] = useState(false)

  // A slice belongs to one run: ask again when the view opens on another run.
  useEffect(() => {
    if (q.slice?.run !== run) void useQuery.getState().run()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path, run])

  const slice = q.slice
  const table = useMemo(() => (slice ? computeSliceTable(slice) : null), [slice])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(q.text)
      setCopied(true)
      setTimeout(() => setCopied(false), 1500)
    } catch {
      // No clipboard permission (web mode over plain http): select the text for Ctrl+C.
      input.current?.select()
    }
  }
  const pointAt = () => {
    const col = q.textError?.column
    if (col && input.current) {
      input.current.focus()
      input.current.setSelectionRange(col - 1, col)
    }
  }

  return (
    <div className="query-view">
      <form
        className="query-bar"
        onSubmit={(e) => {
          e.preventDefault()
          void q.run()
        }}
      >
        <label className="field query-field">
          <span>Slice (SIGMA notation)</span>
          <input
            ref={input}
            className={`query-input${q.textError ? ' invalid' : ''}`}
            value={q.text}
            spellCheck={false}
            onChange={(e) => q.setText(e.target.value)}
            aria-invalid={q.textError !== null}
            aria-describedby={q.textError ? 'query-error' : undefined}
            data-testid="query-input"
          />
        </label>
        <button type="submit" className="button primary" disabled={q.textError !== null} data-testid="query-run">
          Run
        </button>
        <button type="button" className="button" onClick={() => void copy()} data-testid="query-copy" title="Copy the query text to share it">
          {copied ? 'Copied' : 'Copy'}
        </button>
        <Segmented label="Reduction" value={q.reduction} options={REDUCTIONS} onChange={q.setReduction} testId="query-reduction" />
      </form>
      {q.textError && (
        <div className="notice error query-error" role="alert" id="query-error" data-testid="query-text-error">
          <code className="query-caret">
            {q.text}
            {'\n'}
            {' '.repeat(Math.max(0, (q.textError.column ?? 1) - 1))}^
          </code>
          <span>{q.textError.message}</span>
          {q.textError.column && (
            <button type="button" className="link-button" onClick={pointAt}>
              Go to column {q.textError.column}
            </button>
          )}
        </div>
      )}
      {q.status === 'error' && q.error && (
        <div className="notice error" role="alert" data-testid="query-error">
          {q.error}
        </div>
      )}
      {q.status !== 'error' && q.error && <p className="muted small">{q.error}</p>}

      <div className="query-body">
        <SliceAxisPicker axes={axes} selection={q.selection} onToggle={q.toggle} />
        <section className="query-result" aria-label="Slice result" aria-busy={q.status === 'running'}>
          <div className="toolbar">
            <Segmented label="Display" value={q.display} options={DISPLAYS} onChange={q.setDisplay} testId="query-display" />
            {slice && slice.metrics.length > 1 && q.display !== 'table' && (
              <label className="field inline">
                <span>Metric</span>
                <select value={q.metric} onChange={(e) => q.setMetric(Number(e.target.value))} data-testid="query-metric">
                  {slice.metrics.map((m, i) => (
                    <option key={m} value={i}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {slice && table && !q.textError && q.status !== 'error' && <ExportMenu title={`slice ${slice.query}`} label={q.display === 'table' ? 'Export the whole slice' : 'Export'}
                hint={q.display === 'table' ? 'Every cell and the total, in the query’s order, whatever the table’s filter and sort' : undefined} table={() => table} chart={q.display === 'table' ? undefined : () => svg.current} />}
          </div>
          {q.status === 'running' && (
            <div className="query-running" data-testid="query-running">
              {q.progress ? (
                <span role="status" aria-live="polite" className="query-progress">
                  Re-simulating the trace for array sections: {q.progress.events.toLocaleString('en-US')}
                  {q.progress.total ? ` / ${q.progress.total.toLocaleString('en-US')}` : ''} accesses
                  {q.progress.total ? <progress max={q.progress.total} value={q.progress.events} /> : null}
                </span>
              ) : (
                <span className="muted" role="status">
                  Querying…
                </span>
              )}
              <button type="button" className="button danger" onClick={() => void q.cancel()} data-testid="query-cancel">
                Cancel
              </button>
            </div>
          )}
          {slice && q.textError && (
            <p className="muted small" data-testid="query-result-hidden">
              The result of {slice.query} is hidden while the query text has an error.
            </p>
          )}
          {slice && !q.textError && q.status !== 'error' && (
            <div className={q.status === 'running' ? 'query-output stale' : 'query-output'} data-testid="query-output" data-query={slice.query}>
              <p className="muted small">
                {slice.query} · {slice.reduction} · run {slice.run} · {slice.elapsedMs} ms{slice.resimulated ? ' · array sections re-simulated from the trace (exact)' : ''}
              </p>
              {q.display === 'table' ? (
                <SliceTable slice={slice} />
              ) : (
                <div className="slice-chart-wrap">
                  <SliceChart slice={slice} kind={q.display} metric={Math.min(q.metric, slice.metrics.length - 1)} svgRef={svg} />
                </div>
              )}
            </div>
          )}
        </section>
      </div>
    </div>
  )
}

/** One data x code cell of a slice, a row of its table. */
interface SliceItem {
  data: string
  code: string
  values: Array<number | null>
}

function SliceTable({ slice }: { slice: QuerySlice }) {
  const items = useMemo<SliceItem[]>(() => slice.data.flatMap((d, i) => slice.code.map((c, j) => ({ data: d, code: c, values: slice.cells[i]![j]! }))), [slice])
  const columns = useMemo<DataColumn<SliceItem>[]>(
    () => [
      { key: 'data', label: 'Data', type: 'text', sortValue: (r) => r.data, cell: (r) => r.data },
      { key: 'code', label: 'Code', type: 'text', sortValue: (r) => r.code, cell: (r) => r.code },
      ...slice.metrics.map(
        (m, k): DataColumn<SliceItem> => ({
          key: `metric:${k}`,
          label: m,
          type: 'number',
          numeric: true,
          sortValue: (r) => r.values[k] ?? null,
          cell: (r) => formatSliceValue(r.values[k] ?? null, slice.derived[k]!),
          cellProps: (r) => ({ 'data-metric': m, 'data-value': r.values[k] ?? '' })
        })
      )
    ],
    [slice]
  )
  const footer = (
    <tr data-testid="slice-total">
      <th scope="row" colSpan={2}>
        {slice.reduction === 'sum' ? 'Sum' : slice.reduction === 'min' ? 'Min' : 'Max'} over the selection
      </th>
      {slice.total.map((v, m) => (
        <td key={m} className="num" data-value={v ?? ''}>
          {formatSliceValue(v, slice.derived[m]!)}
        </td>
      ))}
    </tr>
  )
  return (
    <DataTable
      rows={items}
      columns={columns}
      rowKey={(r) => `${r.data}\0${r.code}`}
      label={`Slice ${slice.query}`}
      testId="slice-table"
      rowTestId="slice-row"
      noun="cells"
      className="slice-table"
      wrapClassName="slice-table-wrap"
      footer={footer}
      rowAttributes={(r) => ({ 'data-data': r.data, 'data-code': r.code })}
    />
  )
}

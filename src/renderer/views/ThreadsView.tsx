/**
 * The per-thread breakdown of a session of several threads: each thread's accesses (exact,
 * from the trace) with where most of them are, and the run's functions or data structures
 * split by thread (logic/thread-view.ts). Shown as a tab only where the session has several
 * threads; the cache lines they share are in Data structures.
 */
import { useMemo, useState } from 'react'
import type { RunReport } from '../../shared/domain'
import { DataTable, type DataColumn } from '../components/DataTable'
import { Segmented } from '../components/Segmented'
import { computeDataNames } from '../logic/data-names'
import { formatCount, formatPercent } from '../logic/format'
import { computeThreadView, type ThreadAccesses, type ThreadGroupBy, type ThreadGroupRow, type ThreadRow } from '../logic/thread-view'

const THREAD_COLUMNS: ReadonlyArray<DataColumn<ThreadRow>> = [
  { key: 'thread', label: 'Thread', type: 'number', rowHeader: true, sortValue: (t) => t.thread, cell: (t) => t.thread },
  {
    key: 'accesses',
    label: 'Accesses',
    type: 'number',
    numeric: true,
    className: 'misses-cell',
    sortValue: (t) => t.accesses,
    cell: (t) => (
      <>
        <span className="inline-bar" style={{ width: `${100 * t.share}%` }} aria-hidden="true" />
        <span className="inline-bar-value">{formatCount(t.accesses)}</span>
      </>
    )
  },
  { key: 'share', label: 'Share', type: 'number', numeric: true, sortValue: (t) => t.share, cell: (t) => formatPercent(t.share) },
  { key: 'references', label: 'References', type: 'number', numeric: true, sortValue: (t) => t.references, cell: (t) => formatCount(t.references) },
  { key: 'functions', label: 'Functions', type: 'number', numeric: true, sortValue: (t) => t.functions, cell: (t) => formatCount(t.functions) },
  {
    key: 'topFunction',
    label: 'Most accesses in',
    type: 'text',
    className: 'mono',
    sortValue: (t) => t.topFunction?.name ?? null,
    cell: (t) => (t.topFunction ? `${t.topFunction.name} (${formatPercent(t.topFunction.accesses / t.accesses)})` : '–')
  },
  {
    key: 'topData',
    label: 'Most accessed data',
    type: 'text',
    className: 'mono',
    sortValue: (t) => t.topData?.name ?? null,
    cell: (t) => (t.topData ? `${t.topData.name} (${formatPercent(t.topData.accesses / t.accesses)})` : '–')
  }
]

const GROUP_OPTIONS: { value: ThreadGroupBy; label: string }[] = [
  { value: 'function', label: 'Functions' },
  { value: 'data', label: 'Data structures' }
]

export function ThreadsView({ report, byReference }: { report: RunReport; byReference: ThreadAccesses | null }) {
  const names = useMemo(() => computeDataNames(report), [report])
  const view = useMemo(() => (byReference ? computeThreadView(report, byReference, names) : null), [report, byReference, names])
  const [by, setBy] = useState<ThreadGroupBy>('function')
  const groupColumns = useMemo<DataColumn<ThreadGroupRow>[]>(() => {
    if (!view) return []
    const max = Math.max(1, ...view.groups[by].map((g) => g.total))
    const perThread = view.columns.map((thread, i): DataColumn<ThreadGroupRow> => ({
      key: `thread:${thread}`,
      label: `Thread ${thread}`,
      type: 'number',
      numeric: true,
      sortValue: (g) => g.byThread[i]!,
      cell: (g) => (g.byThread[i] ? formatCount(g.byThread[i]) : '–')
    }))
    return [
      {
        key: 'name',
        label: by === 'function' ? 'Function' : 'Data structure',
        type: 'text',
        rowHeader: true,
        required: true,
        className: 'mono',
        sortValue: (g) => g.name,
        filterText: (g) => (g.site ? `${g.name} ${g.site}` : g.name),
        cell: (g) => g.name,
        cellProps: (g) => ({ title: g.site ?? g.name })
      },
      {
        key: 'total',
        label: 'All threads',
        type: 'number',
        numeric: true,
        className: 'misses-cell',
        sortValue: (g) => g.total,
        cell: (g) => (
          <>
            <span className="inline-bar" style={{ width: `${(100 * g.total) / max}%` }} aria-hidden="true" />
            <span className="inline-bar-value">{formatCount(g.total)}</span>
          </>
        )
      },
      ...perThread,
      ...(view.othersColumn
        ? [{ key: 'others', label: 'Other threads', type: 'number', numeric: true, sortValue: (g) => g.byThread[view.columns.length]!, cell: (g) => formatCount(g.byThread[view.columns.length]!) } satisfies DataColumn<ThreadGroupRow>]
        : [])
    ]
  }, [view, by])

  if (!view)
    return (
      <p className="muted pad" data-testid="threads-loading">
        Counting each thread's accesses in the trace…
      </p>
    )
  const footer = (
    <tr data-testid="threads-total" data-total={view.total}>
      <th scope="row">All {view.threads.length}</th>
      <td className="num">{formatCount(view.total)}</td>
      <td className="num">100%</td>
      <td colSpan={THREAD_COLUMNS.length - 3} />
    </tr>
  )
  return (
    <div className="threads-view" data-testid="threads-view">
      <p className="muted small" data-testid="threads-summary">
        {view.threads.length} threads made {formatCount(view.total)} accesses (exact, from the trace). Misses stay per reference: the run simulated one cache for
        all threads in the order they ran; the cache lines threads share are under Data structures.
      </p>
      <section className="threads-table" aria-label="Threads">
        <DataTable
          rows={view.threads}
          columns={THREAD_COLUMNS}
          rowKey={(t) => String(t.thread)}
          defaultSort={null}
          label="Threads"
          testId="threads-table"
          rowTestId="thread-row"
          noun="threads"
          rowAttributes={(t) => ({ 'data-thread': t.thread, 'data-accesses': t.accesses })}
          footer={footer}
        />
      </section>
      <section className="threads-groups" aria-label={`${by === 'function' ? 'Functions' : 'Data structures'} by thread`}>
        <div className="pane-header">
          <h3 className="pane-title">Accesses by thread</h3>
          <Segmented<ThreadGroupBy> label="Split" value={by} options={GROUP_OPTIONS} onChange={setBy} testId="threads-group-by" />
          {view.othersColumn && <span className="muted small">the {view.columns.length} busiest threads each have a column</span>}
        </div>
        <DataTable
          key={by}
          rows={view.groups[by]}
          columns={groupColumns}
          rowKey={(g) => g.site ?? g.name}
          defaultSort={{ key: 'total', dir: 'desc' }}
          label={`${by === 'function' ? 'Functions' : 'Data structures'} by thread`}
          testId="thread-groups-table"
          rowTestId="thread-group-row"
          noun={by === 'function' ? 'functions' : 'data structures'}
          rowAttributes={(g) => ({ 'data-name': g.name, 'data-total': g.total })}
        />
      </section>
    </div>
  )
}

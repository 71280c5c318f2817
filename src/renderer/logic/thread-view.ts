/**
 * The Threads view's model: each thread's accesses (exact, from the trace's per-access
 * threads, getThreadBreakdown), and the run's functions or data structures split by thread.
 * A reference is one instruction, so its function is exact; its data structure is the one
 * most of its accesses fall in (as every table of the run names it). Misses are not split:
 * the run simulated one cache for all threads in the recorded order.
 */
import type { RunReport } from '../../shared/domain'
import type { DataName } from './data-names'

export type ThreadAccesses = ReadonlyMap<string, ReadonlyArray<{ thread: number; accesses: number }>>

export interface ThreadRow {
  thread: number
  accesses: number
  /** Of all threads' accesses, 0..1. */
  share: number
  references: number
  functions: number
  /** Where most of its accesses are, with how many; null when it made none in the report's references. */
  topFunction: { name: string; accesses: number } | null
  topData: { name: string; accesses: number } | null
}

export type ThreadGroupBy = 'function' | 'data'

export interface ThreadGroupRow {
  /** Function or data structure (its display name; `site` keeps a heap site's id). */
  name: string
  site: string | null
  total: number
  /** Accesses per thread, in the order of `ThreadView.columns`; the last entry is the other threads' sum when there are more. */
  byThread: number[]
}

export interface ThreadView {
  threads: ThreadRow[]
  total: number
  /** Threads shown as columns of the grouped table: the busiest, in thread order. */
  columns: number[]
  /** More threads than columns: the rest share one column. */
  othersColumn: boolean
  groups: Record<ThreadGroupBy, ThreadGroupRow[]>
}

/** At most this many threads get a column of their own (a table stays readable at 1280 px). */
export const THREAD_COLUMNS = 8

const NO_FUNCTION = '(no function)'
const NO_DATA = '(no data structure)'

function top(counts: Map<string, number>): { name: string; accesses: number } | null {
  let best: { name: string; accesses: number } | null = null
  for (const [name, accesses] of counts) if (!best || accesses > best.accesses || (accesses === best.accesses && name < best.name)) best = { name, accesses }
  return best
}

/**
 * Pure: the view of `byReference` (each reference's accesses per thread) over the run's
 * references. Threads are listed in their own order; groups by accesses, most first.
 */
export function computeThreadView(report: RunReport, byReference: ThreadAccesses, names: ReadonlyMap<string, DataName> = new Map(), maxColumns = THREAD_COLUMNS): ThreadView {
  const refs = new Map(report.references.map((r) => [r.id, r]))
  const perThread = new Map<number, { accesses: number; references: number; functions: Map<string, number>; data: Map<string, number> }>()
  const groups: Record<ThreadGroupBy, Map<string, Map<number, number>>> = { function: new Map(), data: new Map() }
  let total = 0
  for (const [id, threads] of byReference) {
    const r = refs.get(id)
    const fn = r?.function ?? NO_FUNCTION
    const data = r?.variable ?? NO_DATA
    for (const { thread, accesses } of threads) {
      let t = perThread.get(thread)
      if (!t) perThread.set(thread, (t = { accesses: 0, references: 0, functions: new Map(), data: new Map() }))
      t.accesses += accesses
      t.references++
      t.functions.set(fn, (t.functions.get(fn) ?? 0) + accesses)
      t.data.set(data, (t.data.get(data) ?? 0) + accesses)
      total += accesses
      for (const [by, key] of [['function', fn], ['data', data]] as const) {
        const g = groups[by].get(key) ?? new Map<number, number>()
        groups[by].set(key, g)
        g.set(thread, (g.get(thread) ?? 0) + accesses)
      }
    }
  }
  const threads: ThreadRow[] = [...perThread.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([thread, t]) => {
      const data = top(t.data)
      return {
        thread,
        accesses: t.accesses,
        share: total > 0 ? t.accesses / total : 0,
        references: t.references,
        functions: t.functions.size,
        topFunction: top(t.functions),
        topData: data && { name: names.get(data.name)?.label ?? data.name, accesses: data.accesses }
      }
    })
  const busiest = [...threads].sort((a, b) => b.accesses - a.accesses || a.thread - b.thread)
  const columns = busiest
    .slice(0, maxColumns)
    .map((t) => t.thread)
    .sort((a, b) => a - b)
  const othersColumn = threads.length > columns.length
  const shown = new Set(columns)
  const rowsOf = (m: Map<string, Map<number, number>>, label: (k: string) => { name: string; site: string | null }): ThreadGroupRow[] =>
    [...m.entries()]
      .map(([key, by]) => {
        let rest = 0
        for (const [t, n] of by) if (!shown.has(t)) rest += n
        const byThread = columns.map((t) => by.get(t) ?? 0)
        if (othersColumn) byThread.push(rest)
        return { ...label(key), total: [...by.values()].reduce((s, n) => s + n, 0), byThread }
      })
      .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name))
  return {
    threads,
    total,
    columns,
    othersColumn,
    groups: {
      function: rowsOf(groups.function, (k) => ({ name: k, site: null })),
      data: rowsOf(groups.data, (k) => {
        const n = names.get(k)
        return n && n.label !== k ? { name: n.label, site: k } : { name: k, site: null }
      })
    }
  }
}

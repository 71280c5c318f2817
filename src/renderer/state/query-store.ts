/**
 * The Query view's state: the slice being asked (as SIGMA notation text and as checked
 * items, kept in sync), its reduction and display, and the running query (progress while
 * array sections re-simulate, cancel). The only caller of querySlice.
 */
import { create } from 'zustand'
import type { CallProgress } from '../../shared/api'
import type { QuerySlice, SliceReduction } from '../../shared/domain'
import { selectionFromText, textFromSelection, toggleItem, type SliceAxis, type SliceSelection } from '../logic/query-slice'
import { useSession } from './session-store'
import { errorMessage, stride } from './stride'

export type SliceDisplay = 'table' | 'heatmap' | 'bar' | 'histogram' | 'pie'

export const DEFAULT_SLICE = '[{*},{*},{misses}]'

interface QueryState {
  text: string
  selection: SliceSelection
  /** The typed text does not parse: the message and its column. */
  textError: { message: string; column: number | null } | null
  reduction: SliceReduction
  display: SliceDisplay
  /** Index of the metric the charts show. */
  metric: number
  status: 'idle' | 'running' | 'done' | 'error'
  slice: QuerySlice | null
  error: string | null
  progress: CallProgress | null
  setText(text: string): void
  toggle(axis: SliceAxis, item: string): void
  setReduction(reduction: SliceReduction): void
  setDisplay(display: SliceDisplay): void
  setMetric(metric: number): void
  run(): Promise<void>
  cancel(): Promise<void>
}

const initial = selectionFromText(DEFAULT_SLICE)

export const useQuery = create<QueryState>((set, get) => {
  /** The query running now; a newer one (or cancel) aborts it. */
  let current: AbortController | null = null

  return {
    text: DEFAULT_SLICE,
    selection: initial.ok ? initial.selection : { data: [], code: [], metrics: [] },
    textError: null,
    reduction: 'sum',
    display: 'table',
    metric: 0,
    status: 'idle',
    slice: null,
    error: null,
    progress: null,

    setText(text) {
      const parsed = selectionFromText(text)
      if (parsed.ok) set({ text, selection: parsed.selection, textError: null })
      else set({ text, textError: { message: parsed.message, column: parsed.column } })
    },

    toggle(axis, item) {
      const selection = toggleItem(get().selection, axis, item)
      set({ selection, text: textFromSelection(selection), textError: null })
      // Point and click answers at once; an emptied axis waits for another pick.
      if (selection.data.length > 0 && selection.code.length > 0 && selection.metrics.length > 0) void get().run()
    },

    setReduction(reduction) {
      set({ reduction })
      if (get().slice) void get().run()
    },
    setDisplay: (display) => set({ display }),
    setMetric: (metric) => set({ metric }),

    async run() {
      const { path, run } = useSession.getState()
      if (!path || run === null) return
      const parsed = selectionFromText(get().text)
      if (!parsed.ok) {
        set({ textError: { message: parsed.message, column: parsed.column } })
        return
      }
      current?.abort()
      const mine = new AbortController()
      current = mine
      set({ status: 'running', error: null, progress: null, text: parsed.canonical, selection: parsed.selection, textError: null })
      try {
        const slice = await stride().querySlice(
          { session: path, run, query: parsed.canonical, reduction: get().reduction },
          { signal: mine.signal, onProgress: (progress) => current === mine && set({ progress }) }
        )
        if (current !== mine) return
        set({ status: 'done', slice, metric: Math.min(get().metric, slice.metrics.length - 1), progress: null })
      } catch (e) {
        if (current !== mine) return
        // The previous result answers another query: it must not stay drawn under this error.
        set({ status: 'error', error: errorMessage(e), progress: null, slice: null })
      } finally {
        if (current === mine) current = null
      }
    },

    async cancel() {
      const running = current
      if (!running) return
      current = null
      set({ status: get().slice ? 'done' : 'idle', progress: null, error: 'Query cancelled.' })
      running.abort()
    }
  }
})

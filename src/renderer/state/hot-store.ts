/**
 * "Find hot functions" in the Launch dialog: a whole-program trace with this machine's caches
 * (a startTrace job with no function chosen, followed here rather than by the job store, so
 * the dialog stays open and no session is opened), then the backend's ranking of its
 * functions by first-level misses (hotFunctions). One pass at a time, for one program.
 */
import { create } from 'zustand'
import type { HierarchyConfig } from '../../shared/domain'
import type { ApiEvents } from '../../shared/api'
import type { HotFunctions } from '../../shared/hot-functions'
import { errorMessage, stride } from './stride'

export type HotState =
  | { status: 'idle' }
  | { status: 'running'; program: string; jobId: string | null; events: number; phase: string; cancelling: boolean }
  | { status: 'ready'; program: string; session: string; ranked: HotFunctions }
  | { status: 'error'; program: string; error: string }

interface HotStore {
  state: HotState
  find(program: string, args: string[], config: HierarchyConfig): Promise<void>
  cancel(): Promise<void>
  reset(): void
}

export const useHot = create<HotStore>((set, get) => {
  /** The running pass's program, and whether `token` is still the pass in progress. */
  let token = 0

  return {
    state: { status: 'idle' },

    async find(program, args, config) {
      const mine = ++token
      const live = () => mine === token
      set({ state: { status: 'running', program, jobId: null, events: 0, phase: 'starting', cancelling: false } })
      const api = stride()
      // Events can overtake startTrace's reply: listen first, keep what is ours once known.
      let jobId: string | null = null
      const seen: Array<{ [E in keyof ApiEvents]: { event: E; payload: ApiEvents[E] } }[keyof ApiEvents]> = []
      let settle: (outcome: { session: string | null; run: number | null; error: string | null }) => void = () => {}
      const ended = new Promise<{ session: string | null; run: number | null; error: string | null }>((resolve) => (settle = resolve))
      const handle = (e: (typeof seen)[number]): void => {
        if (e.payload.jobId !== jobId || !live()) return
        if (e.event === 'progress') {
          const s = get().state
          if (s.status === 'running') set({ state: { ...s, events: e.payload.events, phase: e.payload.phase } })
        } else if (e.event === 'finished') settle({ session: e.payload.session, run: e.payload.run, error: e.payload.partial && e.payload.stopReason === 'cancelled' ? 'Cancelled.' : null })
        else if (e.event === 'failed') settle({ session: null, run: null, error: e.payload.error })
      }
      const route = (e: (typeof seen)[number]) => (jobId === null ? void seen.push(e) : handle(e))
      const offs = [
        api.on('progress', (payload) => route({ event: 'progress', payload })),
        api.on('finished', (payload) => route({ event: 'finished', payload })),
        api.on('failed', (payload) => route({ event: 'failed', payload }))
      ]
      try {
        const started = await api.startTrace({ program, args, functions: [], simulate: config })
        jobId = started.jobId
        const s = get().state
        if (live() && s.status === 'running') set({ state: { ...s, jobId } })
        for (const e of seen.splice(0)) handle(e)
        const outcome = await ended
        if (!live()) return
        if (outcome.error !== null || outcome.session === null || outcome.run === null)
          throw new Error(outcome.error ?? 'The whole-program trace stored no run to rank.')
        const ranked = await api.hotFunctions({ session: outcome.session, run: outcome.run })
        if (live()) set({ state: { status: 'ready', program, session: outcome.session, ranked } })
      } catch (e) {
        if (live()) set({ state: { status: 'error', program, error: errorMessage(e) } })
      } finally {
        offs.forEach((off) => off())
      }
    },

    async cancel() {
      const s = get().state
      if (s.status !== 'running' || s.jobId === null) return
      set({ state: { ...s, cancelling: true } })
      await stride()
        .cancelJob({ jobId: s.jobId })
        .catch(() => undefined)
    },

    reset() {
      token++
      set({ state: { status: 'idle' } })
    }
  }
})

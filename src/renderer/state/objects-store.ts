/**
 * The Data structures tab: the method parameters the user chose, and the ranking the backend
 * computed for them (getObjects runs in a worker; its progress comes with the call, and a newer ranking cancels it).
 */
import { create } from 'zustand'
import type { ObjectMethodKind, ObjectsReport, SamplingIntervalKind } from '../../shared/domain'
import { errorMessage, stride } from './stride'

export interface ObjectsParams {
  /** 1 in N misses; null: scaled to the run (about 1,000 samples). */
  sampleEvery: number | null
  sampleInterval: SamplingIntervalKind
  ways: number
  /** Percent of misses below which the search stops looking. */
  thresholdPercent: number
  approxEvery: number
  loopThreshold: number
  skid: boolean
  skidMean: number
  skidSigma: number
}

export const DEFAULT_OBJECTS_PARAMS: ObjectsParams = {
  sampleEvery: null,
  sampleInterval: 'prime',
  ways: 10,
  thresholdPercent: 1,
  approxEvery: 1,
  loopThreshold: 0.75,
  skid: false,
  skidMean: 1,
  skidSigma: 0.7
}

interface ObjectsState {
  params: ObjectsParams
  /** Which session/run/level the report is for (a stale one is not shown). */
  key: string | null
  report: ObjectsReport | null
  status: 'idle' | 'running' | 'ready' | 'error'
  progress: { events: number; total: number | null } | null
  startedAt: number
  error: string | null
  setParams(p: Partial<ObjectsParams>): void
  /** `methods`: which to rank by (all of them unless given; exact alone answers from the run's stored counts). */
  compute(session: string, run: number, level: string, methods?: ObjectMethodKind[]): Promise<void>
}

let ticket = 0
let running: AbortController | null = null

export const objectsKey = (session: string, run: number, level: string) => `${session}#${run}#${level}`

export const useObjects = create<ObjectsState>((set, get) => ({
  params: DEFAULT_OBJECTS_PARAMS,
  key: null,
  report: null,
  status: 'idle',
  progress: null,
  startedAt: 0,
  error: null,
  setParams: (p) => set({ params: { ...get().params, ...p } }),
  async compute(session, run, level, methods) {
    const my = ++ticket
    // A newer ranking supersedes this one: its worker stops rather than finish unseen.
    running?.abort()
    const mine = new AbortController()
    running = mine
    const p = get().params
    set({ status: 'running', error: null, progress: null, startedAt: Date.now(), key: objectsKey(session, run, level) })
    try {
      const report = await stride().getObjects({
        session,
        run,
        level,
        ...(methods ? { methods } : {}),
        sampleEvery: p.sampleEvery,
        sampleInterval: p.sampleInterval,
        ways: p.ways,
        threshold: p.thresholdPercent / 100,
        approxEvery: p.approxEvery,
        loopThreshold: p.loopThreshold,
        skid: p.skid ? { mean: p.skidMean, sigma: p.skidSigma } : null
      }, { signal: mine.signal, onProgress: ({ events, total }) => my === ticket && set({ progress: { events, total } }) })
      if (my === ticket) set({ report, status: 'ready' })
    } catch (e) {
      if (my === ticket) set({ status: 'error', error: errorMessage(e) })
    } finally {
      if (running === mine) running = null
    }
  }
}))

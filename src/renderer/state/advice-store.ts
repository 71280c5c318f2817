/**
 * The advisor's diagnoses of the open run at one level, fetched from the backend (getAdvice)
 * and kept until the run or level changes. One request at a time; a late answer for an older
 * request is dropped.
 */
import { create } from 'zustand'
import type { HierarchyConfig, RunAdvice } from '../../shared/domain'
import { errorMessage, stride } from './stride'

interface AdviceState {
  /** "session\0run\0level" of what `advice` answers. */
  key: string | null
  advice: RunAdvice | null
  status: 'idle' | 'loading' | 'ready' | 'error'
  error: string | null
  load(session: string, run: number, level: string): Promise<void>
}

let ticket = 0

export const useAdvice = create<AdviceState>((set, get) => ({
  key: null,
  advice: null,
  status: 'idle',
  error: null,
  async load(session, run, level) {
    const key = `${session}\0${run}\0${level}`
    if (get().key === key && get().status !== 'error') return
    const my = ++ticket
    set({ key, status: 'loading', error: null, advice: null })
    try {
      const advice = await stride().getAdvice({ session, run, level })
      if (my === ticket) set({ advice, status: 'ready' })
    } catch (e) {
      if (my === ticket) set({ status: 'error', error: errorMessage(e) })
    }
  }
}))

/** The level the advice is for: the chosen one if it is a cache level of the run, else its first cache level ('' without one). */
export function adviceLevel(config: HierarchyConfig, chosen: string | null): string {
  const cacheLevels = config.levels.map((l) => l.name)
  return chosen && cacheLevels.includes(chosen) ? chosen : (cacheLevels[0] ?? '')
}

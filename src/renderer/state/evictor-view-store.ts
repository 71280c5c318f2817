/**
 * What the evictor graph tab shows of the open run (node kind, expanded data structures, how
 * many nodes), kept while the tab is away (a double-click goes to the source tab and back) and
 * reset for another session or run.
 */
import { create } from 'zustand'
import { EVICTOR_TOP_N, type EvictorGraphMode } from '../logic/evictor-graph'

export interface EvictorViewChoice {
  mode: EvictorGraphMode
  /** Data structures drawn as their references (variable mode). */
  expanded: ReadonlySet<string>
  /** How many nodes are shown, the most-missing first. */
  limit: number
}

interface EvictorViewState extends EvictorViewChoice {
  /** "session\0run" the choice is for. */
  key: string | null
  set(key: string, choice: Partial<EvictorViewChoice>): void
}

export const EVICTOR_VIEW_DEFAULT: EvictorViewChoice = { mode: 'variable', expanded: new Set(), limit: EVICTOR_TOP_N }

export const useEvictorView = create<EvictorViewState>((set, get) => ({
  key: null,
  ...EVICTOR_VIEW_DEFAULT,
  set(key, choice) {
    const base = get().key === key ? get() : EVICTOR_VIEW_DEFAULT
    set({ key, mode: base.mode, expanded: base.expanded, limit: base.limit, ...choice })
  }
}))

/** The choice for `key`: the stored one, or the defaults for a session or run not seen yet. */
export function evictorViewFor(state: EvictorViewState, key: string): EvictorViewChoice {
  return state.key === key ? state : EVICTOR_VIEW_DEFAULT
}

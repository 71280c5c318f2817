/**
 * "What if": re-simulate the open session with the current run's hierarchy changed (other
 * levels, layout filters, loop transforms). When done, the new run is shown in Compare against the run it came
 * from; the active run stays until the user makes the new one active.
 */
import { create } from 'zustand'
import type { CacheLevelConfig, HierarchyConfig, LayoutFilter, LoopTransform, TlbLevelConfig } from '../../shared/domain'
import { prepareDiffSide } from '../../shared/run-diff'
import { useJobs } from './job-store'
import { useSession } from './session-store'

export interface WhatIfChange {
  levels?: CacheLevelConfig[]
  tlb?: TlbLevelConfig[]
  /** Replaces the current run's layout filters. */
  layout?: LayoutFilter[]
  /** Replaces the current run's loop transforms. */
  transforms?: LoopTransform[]
}

/** The hierarchy of a what-if: the base run's, with the change applied. */
export function computeWhatIfConfig(base: HierarchyConfig, change: WhatIfChange): HierarchyConfig {
  return {
    ...base,
    levels: change.levels ?? base.levels,
    tlb: change.tlb ?? base.tlb,
    layout: change.layout ?? base.layout ?? [],
    transforms: change.transforms ?? base.transforms ?? []
  }
}

/** Starts the what-if; false when nothing is open or the backend refused (the banner says why). */
export async function runWhatIf(change: WhatIfChange): Promise<boolean> {
  const s = useSession.getState()
  if (!s.path || s.run === null || !s.report) return false
  const config = computeWhatIfConfig(s.report.config, change)
  const from = { session: s.path, run: s.run }
  // The run it came from is recorded with the new run: its label says what the what-if changed.
  const started = await useJobs.getState().simulate({ session: s.path, config, parent: s.run })
  if (started) {
    await useSession.getState().setBaseline(from)
    // The baseline's side of the comparison is counted while the simulation runs.
    const { baselineReport, level } = useSession.getState()
    if (baselineReport && level) setTimeout(() => prepareDiffSide(baselineReport, level), 0)
  }
  return started
}

interface WhatIfDraftState {
  /** A proposed change (e.g. the advisor's) the what-if form starts from; null: the run's own. */
  proposal: WhatIfChange | null
  /** Why it was proposed, shown above the form. */
  reason: string | null
  /** Bumped per proposal so the form reloads even when the same one comes twice. */
  seq: number
  /** Open the what-if form pre-filled with a change. */
  propose(change: WhatIfChange, reason: string): void
  clear(): void
}

export const useWhatIfDraft = create<WhatIfDraftState>((set, get) => ({
  proposal: null,
  reason: null,
  seq: 0,
  propose(change, reason) {
    set({ proposal: change, reason, seq: get().seq + 1 })
    useSession.getState().setTab('whatif')
  },
  clear: () => set({ proposal: null, reason: null, seq: get().seq + 1 })
}))

/**
 * "What if": re-simulate the open session with the current run's hierarchy changed (other
 * levels, layout filters). The new run opens when done, compared against the run it came from.
 */
import type { CacheLevelConfig, HierarchyConfig, LayoutFilter, TlbLevelConfig } from '../../shared/domain'
import { useJobs } from './job-store'
import { useSession } from './session-store'

export interface WhatIfChange {
  levels?: CacheLevelConfig[]
  tlb?: TlbLevelConfig[]
  /** Replaces the current run's layout filters. */
  layout?: LayoutFilter[]
}

/** The hierarchy of a what-if: the base run's, with the change applied. */
export function computeWhatIfConfig(base: HierarchyConfig, change: WhatIfChange): HierarchyConfig {
  return {
    ...base,
    levels: change.levels ?? base.levels,
    tlb: change.tlb ?? base.tlb,
    layout: change.layout ?? base.layout ?? []
  }
}

/** Starts the what-if; false when nothing is open or the backend refused (the banner says why). */
export async function runWhatIf(change: WhatIfChange): Promise<boolean> {
  const s = useSession.getState()
  if (!s.path || s.run === null || !s.report) return false
  const config = computeWhatIfConfig(s.report.config, change)
  s.setBaseline(s.run)
  return useJobs.getState().simulate({ session: s.path, config })
}

/**
 * What a session shows on opening, derived from its first run at the trace's end, where the
 * run's rows and the point columns are at hand, and stored with it (store/view-cache.ts): the
 * advisor's diagnosis of the first cache level and the exact data-structure ranking at it.
 * `stride advise`, `stride objects --method exact` and the app's Advisor then read them instead
 * of rebuilding the run's report on every open. Derived exactly as they derive them.
 */
import { levelNames } from '../../shared/report-model'
import type { Db } from '../store/open-db'
import { buildReport } from '../store/runs'
import { SessionStatics } from '../store/session-statics'
import type { CachedStatics } from '../store/statics-cache'
import type { StoredView } from '../store/view-cache'
import type { FirstSimulation } from './first-simulation'
import { adviseReport } from './session-advice'
import { exactCountsOf } from './session-objects'

/** The views of `run`; none that could not be derived whole (never throws). */
export async function firstViews(db: Db, run: number, seed: CachedStatics | undefined, first: FirstSimulation | null): Promise<StoredView[]> {
  try {
    // A holder like the readers' (point streams and all), given the columns just written and
    // what the first simulation's holder kept (the run's rows; the points where it reads streams too).
    const statics = new SessionStatics()
    first?.statics.lendTo(statics)
    if (seed) {
      statics.seedColumns(seed.columns)
      statics.seedTouches(seed.touches)
    }
    const report = buildReport(db, run, statics)
    // And back: the first report (the app's) is this one, once the writer has keyed it.
    if (first) {
      statics.lendTo(first.statics)
      first.keepReport(report)
    }
    const views: StoredView[] = []
    // The ranking's default level is the run's first (a cache, or a TLB without caches); the advisor's its first cache.
    const ranked = levelNames(report.config)[0]
    const counts = exactCountsOf(report, 0)
    if (ranked !== undefined && counts) views.push({ run, view: 'objects-exact', key: ranked, value: counts })
    const cache = report.config.levels[0]?.name
    if (cache !== undefined) {
      const advice = await adviseReport(db, report, cache, statics)
      // A degraded diagnosis (the trace could not be replayed) is not one to keep.
      if (!advice.classesMissing) {
        views.push({ run, view: 'advice', key: cache, value: advice })
        first?.keepAdvice(advice)
      }
    }
    return views
  } catch {
    return []
  }
}

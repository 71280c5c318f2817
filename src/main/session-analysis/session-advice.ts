/**
 * The advisor over a stored run: the run's report, the three Cs of its misses at the level
 * (the trace replayed into a fully associative shadow of the level, through the run's layout
 * filters), then the diagnosis. The one adapter of advice/: it reads the session, the rest is
 * pure. Used in-process by `stride advise` and in the report worker by the API's getAdvice.
 */
import { StrideError } from '../../shared/errors'
import type { MissClasses, RunAdvice, RunReport } from '../../shared/domain'
import { buildLayoutMap } from '../simulate/layout-filter'
import type { Db } from '../store/open-db'
import { buildReport } from '../store/runs'
import { iterateChunks } from '../store/session-reader'
import { SessionStatics } from '../store/session-statics'
import { readPlacedVariables } from './placed-variables'
import { MissStream } from '../analysis/objects/miss-stream'
import { diagnoseRun, levelConfig } from '../analysis/advice/diagnose'
import { MAX_REMEMBERED_LINES, MissClassifier } from '../analysis/advice/miss-classes'

export async function adviseStoredRun(db: Db, run: number | null, level: string | null, statics: SessionStatics = new SessionStatics()): Promise<RunAdvice> {
  const report = buildReport(db, run, statics)
  const name = level ?? report.config.levels[0]!.name
  levelConfig(report, name) // a wrong level is the user's error, not a replay failure
  try {
    return diagnoseRun(report, { level: name, classes: await classifyMisses(db, report, name, statics) })
  } catch (e) {
    // A damaged trace still has a stored run to diagnose; only the set-mapping check is lost.
    if (!(e instanceof StrideError) || e.code !== 'malformed-session') throw e
    return { ...diagnoseRun(report, { level: name }), classesMissing: `the trace could not be replayed (${e.message}), so no miss is called a conflict` }
  }
}

/** Replays the trace into a fully associative shadow of `level`; per reference, its misses' three Cs. */
export async function classifyMisses(db: Db, report: RunReport, level: string, statics: SessionStatics = new SessionStatics()): Promise<MissClasses> {
  const cache = levelConfig(report, level)
  const index = report.config.levels.indexOf(cache)
  const kinds = statics.kinds(db)
  const points = statics.points(db)
  const layout = report.config.layout && report.config.layout.length > 0 ? buildLayoutMap(await readPlacedVariables(db), report.config.layout) : null
  const classifier = new MissClassifier(cache, kinds.length)
  if (index === 0) {
    const mapped = new Float64Array(1 << 16)
    for (const chunk of iterateChunks(db, kinds.length)) {
      let addresses = chunk.addresses
      if (layout) {
        const to = chunk.count <= mapped.length ? mapped : new Float64Array(chunk.count)
        layout.apply(chunk.addresses, to, chunk.count)
        addresses = to
      }
      for (let i = 0; i < chunk.count; i++) {
        const p = chunk.points[i]!
        classifier.access(p, addresses[i]!, chunk.sizes[i]!)
        // A modify is a read then a write of the same bytes (the run counts both).
        if (kinds[p] === MODIFY) classifier.access(p, addresses[i]!, chunk.sizes[i]!)
      }
    }
  } else {
    // A deeper level sees the misses of the one before it (write-backs and prefetches aside).
    const previous = new MissStream({ config: report.config, pointKinds: kinds, level: index - 1, mapAddresses: layout ? (f, t, n) => layout.apply(f, t, n) : null })
    const one = new Float64Array(1)
    for (const chunk of iterateChunks(db, kinds.length)) {
      const misses = previous.run(chunk)
      for (let i = 0; i < misses.count; i++) {
        one[0] = misses.address[i]!
        if (layout) layout.apply(one, one, 1)
        classifier.access(misses.point[i]!, one[0], 1)
      }
    }
  }
  const runMisses = new Float64Array(kinds.length)
  const byId = new Map(report.references.map((r) => [r.id, r]))
  for (const p of points) runMisses[p.index] = byId.get(p.id)?.levels[level]?.misses ?? 0
  const counts = classifier.classify(runMisses)
  const byReference: MissClasses['byReference'] = {}
  for (const p of points) if (byId.has(p.id)) byReference[p.id] = counts[p.index]!
  return {
    level,
    sets: classifier.setCount,
    source:
      (index === 0 ? 'every access of the trace' : `the misses of ${report.config.levels[index - 1]!.name}`) +
      (classifier.forgetful ? `; more than ${MAX_REMEMBERED_LINES.toLocaleString('en-US')} distinct lines, so later first touches count as capacity` : ''),
    byReference
  }
}

/** The stored kind code of a read-modify-write point (store/session-reader's KINDS order). */
const MODIFY = 2

/**
 * The advisor over a stored run: the run's report, the three Cs of its misses at the level
 * (from the shadow counts the trace's first simulation kept, else the trace replayed into a
 * fully associative shadow of the level, through the run's layout filters), then the diagnosis. The one adapter of advice/: it reads the session, the rest is
 * pure. Used in-process by `stride advise` and in the report worker by the API's getAdvice.
 */
import { accessSync, constants } from 'node:fs'
import { transformed, transformsOf } from './run-transforms'
import type { NestPoint } from '../simulate/transform/nest-streams'
import { StrideError } from '../../shared/errors'
import type { AdviceItem, HierarchyConfig, MissClasses, RunAdvice, RunReport } from '../../shared/domain'
import { readThreadRuns, recordedThreads } from '../store/session-reader'
import { threadsOf } from '../store/thread-runs'
import { sessionSharing, sharingByVariable } from './session-sharing'
import { sharingAdvice } from '../analysis/sharing/sharing-advice'
import { buildLayoutMap } from '../simulate/layout-filter'
import type { Db } from '../store/open-db'
import { buildReport, latestRun } from '../store/runs'
import { readView } from '../store/view-cache'
import { countEvents, iterateChunks, parseRunConfig } from '../store/session-reader'
import { getRow } from '../store/rows'
import { readShadowCounts } from '../store/shadow-counts'
import { NativeMissClassifier } from '../simulate/native-miss-classes'
import { SessionStatics } from '../store/session-statics'
import { readPlacedVariables } from './placed-variables'
import { MissStream } from '../analysis/objects/miss-stream'
import { diagnoseRun, levelConfig } from '../analysis/advice/diagnose'
import { classesOf, MAX_REMEMBERED_LINES, type ShadowCounts } from '../analysis/advice/miss-classes'

export async function adviseStoredRun(db: Db, run: number | null, level: string | null, statics: SessionStatics = new SessionStatics()): Promise<RunAdvice> {
  const stored = storedAdvice(db, run, level)
  if (stored) return stored
  return adviseReport(db, buildReport(db, run, statics), level, statics)
}

/** The diagnosis the trace stored for this run and level (view-cache.ts), if it holds under this build; else null. */
function storedAdvice(db: Db, run: number | null, level: string | null): RunAdvice | null {
  const id = run ?? latestRun(db)
  if (id === null) return null
  const config = getRow(db.prepare('SELECT config FROM runs WHERE run = ?'), { config: 'text' }, id)?.config
  if (config === undefined) return null
  const name = level ?? parseRunConfig(id, config).levels[0]?.name
  if (name === undefined) return null
  const view = readView(db, id, 'advice', name) as RunAdvice | null
  // As derived for that run and level (the identity binds it): a row filed under another is damage.
  return view && view.run === id && view.level === name ? view : null
}

/** The advisor over a run's report (built by the caller) at `level` (null: its first cache level). */
export async function adviseReport(db: Db, report: RunReport, level: string | null, statics: SessionStatics): Promise<RunAdvice> {
  const name = level ?? report.config.levels[0]!.name
  levelConfig(report, name) // a wrong level is the user's error, not a replay failure
  let advice: RunAdvice
  try {
    advice = diagnoseRun(report, { level: name, classes: await classifyMisses(db, report, name, statics), transformable: readableSource() })
  } catch (e) {
    // A damaged trace still has a stored run to diagnose; only the set-mapping check is lost.
    if (!(e instanceof StrideError) || e.code !== 'malformed-session') throw e
    return { ...diagnoseRun(report, { level: name, transformable: readableSource() }), classesMissing: `the trace could not be replayed (${e.message}), so no miss is called a conflict` }
  }
  const sharing = await sharingItems(db, report, name, advice.totalMisses)
  if (sharing.length === 0) return advice
  return { ...advice, items: [...advice.items, ...sharing].sort((a, b) => b.misses - a.misses) }
}

/** Whether a source file can be read, as a transform reads it (source-nest.ts), asked once per file. */
function readableSource(): (file: string) => boolean {
  const known = new Map<string, boolean>()
  return (file) => {
    let ok = known.get(file)
    if (ok === undefined) {
      try {
        accessSync(file, constants.R_OK)
        ok = true
      } catch {
        ok = false
      }
      known.set(file, ok)
    }
    return ok
  }
}

/**
 * False and true sharing (issue 50), for a session of several threads whose accesses carry
 * their thread: the lines they share at the level's line size, through the run's layout.
 * Two passes over the trace; nothing for one thread or a session without threads.
 */
async function sharingItems(db: Db, report: RunReport, level: string, totalMisses: number): Promise<AdviceItem[]> {
  // One thread recorded: nothing to share, and no pass over the chunks' thread runs.
  if (recordedThreads(db) === 1) return []
  const runs = readThreadRuns(db)
  if (!runs || threadsOf(runs).length < 2) return []
  const cache = levelConfig(report, level)
  const sharing = await sessionSharing(db, cache.lineSize, report.config.layout ?? [])
  const variables = await readPlacedVariables(db)
  const byName = new Map(variables.map((v) => [v.name, v]))
  const byId = new Map(report.references.map((r) => [r.id, r]))
  // The run's levels for the multi-core what-if: the last one shared when there are several.
  const levels = report.config.levels.map((l, i, all) => ({ ...l, shared: all.length > 1 && i === all.length - 1 }))
  return sharingAdvice(sharingByVariable(sharing), {
    lineSize: cache.lineSize,
    levels,
    totalMisses,
    locationOf: (id) => {
      const r = byId.get(id)
      return r?.file && r.line ? `${r.file.slice(r.file.lastIndexOf('/') + 1)}:${r.line}` : null
    },
    layoutOf: (name) => {
      const v = byName.get(name)
      return v ? { size: v.size, elementSize: v.elementSize } : null
    }
  })
}

/**
 * Per reference, its misses' three Cs at `level`: from the shadow counts the trace's first
 * simulation kept for this run and level (store/shadow-counts.ts), else by replaying the trace
 * into a fully associative shadow of the level (native), through the run's layout filters.
 */
export async function classifyMisses(db: Db, report: RunReport, level: string, statics: SessionStatics = new SessionStatics()): Promise<MissClasses> {
  const cache = levelConfig(report, level)
  const index = report.config.levels.indexOf(cache)
  const kinds = statics.kinds(db)
  const points = statics.points(db)
  const key = { run: report.run, level, size: cache.size, assoc: cache.assoc, lineSize: cache.lineSize, events: countEvents(db) }
  // Stored counts are of the trace as recorded: a run that moved or reordered it replays it.
  const layout = (!!report.config.layout && report.config.layout.length > 0) || (!!report.config.transforms && report.config.transforms.length > 0)
  const counts = readShadowCounts(db, key, kinds.length, { firstLevel: index === 0, layout }) ?? (await replayShadow(db, report, index, kinds, () => points))
  const runMisses = new Float64Array(kinds.length)
  const byId = new Map(report.references.map((r) => [r.id, r]))
  for (const p of points) runMisses[p.index] = byId.get(p.id)?.levels[level]?.misses ?? 0
  const classes = classesOf(counts, runMisses)
  const byReference: MissClasses['byReference'] = {}
  for (const p of points) if (byId.has(p.id)) byReference[p.id] = classes[p.index]!
  return {
    level,
    sets: counts.setCount,
    source: shadowSource(report.config, index, counts.forgetful),
    byReference
  }
}

/** What fed the shadow of level `index`, as the advice says it. */
export function shadowSource(config: HierarchyConfig, index: number, forgetful: boolean): string {
  return (
    (index === 0 ? 'every access of the trace' : `the misses of ${config.levels[index - 1]!.name}`) +
    (forgetful ? `; more than ${MAX_REMEMBERED_LINES.toLocaleString('en-US')} distinct lines, so later first touches count as capacity` : '')
  )
}

/** The shadow of level `index` fed the stored trace again: every access for the first level, the previous level's misses for a deeper one. */
async function replayShadow(db: Db, report: RunReport, index: number, kinds: Uint8Array, points: () => readonly NestPoint[]): Promise<ShadowCounts> {
  const cache = report.config.levels[index]!
  const chain = await transformsOf(report.config, points)
  const layout = report.config.layout && report.config.layout.length > 0 ? buildLayoutMap(await readPlacedVariables(db), report.config.layout) : null
  const shadow = new NativeMissClassifier(cache)
  if (index === 0) {
    const mapped = new Float64Array(1 << 16)
    for (const chunk of transformed(iterateChunks(db, kinds.length), chain)) {
      let addresses = chunk.addresses
      if (layout) {
        const to = chunk.count <= mapped.length ? mapped : new Float64Array(chunk.count)
        layout.apply(chunk.addresses, to, chunk.count)
        addresses = to
      }
      // A modify is a read then a write of the same bytes (the run counts both): `kinds` doubles it.
      shadow.run({ count: chunk.count, points: chunk.points, addresses, sizes: chunk.sizes }, kinds)
    }
  } else {
    // A deeper level sees the misses of the one before it (write-backs and prefetches aside).
    const previous = new MissStream({ config: report.config, pointKinds: kinds, level: index - 1, mapAddresses: layout ? (f, t, n) => layout.apply(f, t, n) : null })
    let ones = new Uint16Array(0)
    let mapped = new Float64Array(0)
    for (const chunk of transformed(iterateChunks(db, kinds.length), chain)) {
      const misses = previous.run(chunk)
      if (ones.length < misses.count) {
        ones = new Uint16Array(misses.count).fill(1)
        mapped = new Float64Array(misses.count)
      }
      let addresses = misses.address
      if (layout) {
        layout.apply(misses.address, mapped, misses.count)
        addresses = mapped
      }
      shadow.run({ count: misses.count, points: misses.point, addresses, sizes: ones }, null)
    }
  }
  return shadow.counts(kinds.length)
}

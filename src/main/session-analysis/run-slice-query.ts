/**
 * Answers one slice query over a stored run: whole data structures from the run's tables,
 * array sections by re-simulating the trace (with progress, and a stop check between chunks).
 * Used by the query worker (app) and by `stride query` (CLI).
 */
import { transformed, transformsOf } from './run-transforms'
import { StrideError } from '../../shared/errors'
import type { HierarchyConfig, QuerySlice, SliceReduction } from '../../shared/domain'
import { parseSliceQuery, SliceParseError, type SliceQuery } from '../../shared/slice-notation'
import { buildLayoutMap } from '../simulate/layout-filter'
import { hasTable, type Db } from '../store/open-db'
import { levelNames } from '../../shared/report-model'
import { latestRun } from '../store/runs'
import { countEvents, iterateChunks, parseRunConfig, readPointKinds, readPoints } from '../store/session-reader'
import { readPlacedVariables } from './placed-variables'
import { factFilter, readSliceFacts } from '../store/slice-facts'
import { unknownSliceNames, type SessionNames } from '../analysis/query/slice-names'
import { computeQuerySlice, type SliceFact } from '../analysis/query/slice-reduce'
import { SectionClassifier, SectionSimulation, type PointPlace } from '../analysis/query/slice-sections'
import { allRows, getRow } from '../store/rows'

export interface SliceQueryInput {
  run: number | null
  query: string
  reduction: SliceReduction
}

export interface SliceQueryHooks {
  /** Accesses re-simulated so far (array sections only). */
  onProgress?: (events: number, total: number) => void
  /** Checked after every chunk; true stops the query with "Query cancelled.". */
  shouldStop?: () => boolean
}

function parse(text: string): SliceQuery {
  try {
    return parseSliceQuery(text)
  } catch (e) {
    if (e instanceof SliceParseError) throw new StrideError(`Query: ${e.message}.`, 'invalid-input')
    throw e
  }
}

async function sectionFacts(db: Db, query: SliceQuery, config: HierarchyConfig, hooks: SliceQueryHooks): Promise<SliceFact[]> {
  const placed = await readPlacedVariables(db)
  const classifier = new SectionClassifier(query, placed)
  if (!classifier.active) return []
  const kinds = readPointKinds(db)
  const sim = new SectionSimulation(config, kinds, classifier)
  const layout = config.layout && config.layout.length > 0 ? buildLayoutMap(placed, config.layout) : null
  const total = countEvents(db)
  let done = 0
  let lastPost = 0
  const chain = await transformsOf(config, () => readPoints(db))
  for (const chunk of transformed(iterateChunks(db, kinds.length), chain)) {
    if (layout) sim.feed(layout.mapBatch(chunk), chunk.addresses)
    else sim.feed(chunk)
    done += chunk.count
    const now = Date.now()
    if (now - lastPost > 150) {
      lastPost = now
      hooks.onProgress?.(done, total)
      await new Promise((r) => setImmediate(r)) // let a stop message in
    }
    if (hooks.shouldStop?.()) throw new StrideError('Query cancelled.', 'cancelled')
  }
  const loops = hasTable(db, 'point_loops')
  const rows = allRows(
    db.prepare(loops ? 'SELECT p.idx AS idx, p.function AS function, p.file AS file, p.line AS line, pl.loop AS loop FROM points p LEFT JOIN point_loops pl ON pl.point = p.idx' : 'SELECT idx, function, file, line, NULL AS loop FROM points'),
    { idx: 'int', function: 'text?', file: 'text?', line: 'int?', loop: 'int?' }
  )
  const places: PointPlace[] = []
  for (const r of rows) places[r.idx] = { function: r.function, file: r.file, line: r.line, loop: r.loop }
  // A mask's bits all belong to one variable (an address lies in one data structure).
  const nameOfMask = (mask: number) => query.data[Math.log2(mask & -mask)]!.name
  return sim.facts(places, nameOfMask)
}

/** The data structures, functions and files a query may name: those of the traced references (and the session's variables and traced functions). */
function sessionNames(db: Db): SessionNames {
  const points = allRows(db.prepare('SELECT DISTINCT variable, function, file FROM points'), { variable: 'text?', function: 'text?', file: 'text?' })
  const sorted = (xs: string[]) => [...new Set(xs)].sort()
  const variables = sorted(points.map((p) => p.variable ?? 'unknown'))
  if (hasTable(db, 'variables')) variables.push(...sorted((allRows(db.prepare('SELECT name FROM variables'), { name: 'text' })).map((r) => r.name)))
  const functions = sorted(points.map((p) => p.function ?? 'unknown'))
  const traced = getRow(db.prepare("SELECT value FROM meta WHERE key = 'functions'"), { value: 'text' })
  if (traced) functions.push(...(JSON.parse(traced.value) as unknown[]).filter((f): f is string => typeof f === 'string'))
  return { variables, functions, files: sorted(points.map((p) => p.file).filter((f): f is string => f !== null)) }
}

export async function runSliceQuery(db: Db, input: SliceQueryInput, hooks: SliceQueryHooks = {}): Promise<QuerySlice> {
  const started = performance.now()
  const query = parse(input.query)
  const unknown = unknownSliceNames(query, sessionNames(db))
  if (unknown) throw new StrideError(unknown, 'invalid-input')
  const run = input.run ?? latestRun(db)
  if (run === null) throw new StrideError('This session has no simulation runs yet; run "stride simulate SESSION --cache L1:32K:8:64" first.', 'not-found')
  const row = getRow(db.prepare('SELECT config FROM runs WHERE run = ?'), { config: 'text' }, run)
  if (!row) throw new StrideError(`Run ${run} is not in this session; "stride info" lists its runs.`, 'not-found')
  const config = parseRunConfig(run, row.config)
  const whole = query.data.filter((d) => d.section === null)
  const facts = whole.length > 0 ? readSliceFacts(db, run, factFilter(db, query)) : []
  const sections = await sectionFacts(db, query, config, hooks)
  const loops = hasTable(db, 'loops') ? (allRows(db.prepare('SELECT id, parent, file, line FROM loops'), { id: 'number', parent: 'number?', file: 'text?', line: 'number?' })) : []
  const slice = computeQuerySlice(query, input.reduction, facts.concat(sections), { run, levels: levelNames(config), caches: config.levels.length, loops })
  return { ...slice, resimulated: query.data.some((d) => d.section !== null), elapsedMs: Math.round(performance.now() - started) }
}


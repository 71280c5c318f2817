/**
 * Adapter: ranks a session's data structures by the misses they cause at one level, the four
 * ways side by side (exact, 1-in-N sampling, n-way search, Rutar's approximation), in one
 * pass over the stored trace through the simulator. Reads the session (SQLite) and the C
 * sources; everything it computes is done by the pure modules next to it.
 */
import { transformedAhead, transformsOf } from './run-transforms'
import { performance } from 'node:perf_hooks'
import { StrideError } from '../../shared/errors'
import type { AccessPoint, ObjectEstimate, ObjectMethodKind, ObjectMethodResult, ObjectsOptions, ObjectsReport, RunReport, VariableKind } from '../../shared/domain'
import { buildLayoutMap } from '../simulate/layout-filter'
import { levelNames } from '../../shared/report-model'
import { countEvents, iterateChunksAhead, openSessionDb, readPointKinds, readPoints, readRuns } from '../store/session-reader'
import { readPlacedVariables } from './placed-variables'
import type { Db } from '../store/open-db'
import { gaussianSkid, loopAdjust, rawAssignment, restrictReads, RUTAR_SKID, skidNegate, stepLines, sumByVariable, type Cell, type FileModel } from '../analysis/objects/approx-attribution'
import { methodLabel, rankError, rankEstimates, UNKNOWN_NAME } from '../analysis/objects/estimates'
import { MissSampler } from '../analysis/objects/miss-sampling'
import { MissStream } from '../analysis/objects/miss-stream'
import { NwaySearch } from '../analysis/objects/nway-search'
import { ObjectTable } from '../analysis/objects/object-table'
import { detectHardwareMisses, recordLineSamples } from '../tracing/perf/perf-samples'
import { modelFromFile } from '../analysis/objects/source-reads'
import { allRows, getRow } from '../store/rows'
import { StoredChunkVariables } from '../store/chunk-variables'
import { buildReport } from '../store/runs'
import { readView } from '../store/view-cache'
import { VARIABLE_KINDS } from '../store/variables'
import { groupVariables } from '../../shared/report-model'

export const DEFAULT_OBJECTS_OPTIONS: ObjectsOptions = {
  run: null,
  level: null,
  methods: ['exact', 'sample', 'search', 'approx-raw', 'approx-loop', 'approx-skid'],
  sampleEvery: null,
  sampleInterval: 'prime',
  ways: 10,
  threshold: 0.01,
  searchInterval: null,
  approxEvery: 1,
  loopThreshold: 0.75,
  skid: null,
  approxSource: 'simulated'
}

export interface ObjectsProgress {
  events: number
  total: number
}

const APPROX: ObjectMethodKind[] = ['approx-raw', 'approx-loop', 'approx-skid']
/** Samples the scaled default period aims at: enough for shares within a few points (Buck 3.1). */
export const TARGET_SAMPLES = 1000

/** 1 in N for about TARGET_SAMPLES samples of the run's stored misses at the level (at least 1). */
export function scaledPeriod(storedMisses: number): number {
  return Math.max(1, Math.round(storedMisses / TARGET_SAMPLES))
}

/** xorshift32 in [0, 1): simulated skid is reproducible. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}

/**
 * Per point, the stack local it touches most (from `point_variables`), as an object index
 * after the placed objects and `unknown`: `first` + 1 + its position in `names`.
 */
function stackLocalsByPoint(db: Db, first: number): { names: string[]; byPoint: Map<number, number> } {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='point_variables'").get()
  if (!has) return { names: [], byPoint: new Map() }
  const rows = allRows(
    db.prepare("SELECT pv.point AS point, v.name AS name FROM point_variables pv JOIN variables v ON v.id = pv.variable WHERE v.kind = 'stack' ORDER BY pv.point, pv.accesses DESC"),
    { point: 'int', name: 'text' }
  )
  const names: string[] = []
  const index = new Map<string, number>()
  const byPoint = new Map<number, number>()
  for (const r of rows) {
    if (byPoint.has(r.point)) continue
    let k = index.get(r.name)
    if (k === undefined) index.set(r.name, (k = first + 1 + names.push(r.name) - 1))
    byPoint.set(r.point, k)
  }
  return { names, byPoint }
}

function pick(dist: Array<{ offset: number; p: number }>, u: number): number {
  let acc = 0
  for (const d of dist) if (u < (acc += d.p)) return d.offset
  return dist[dist.length - 1]!.offset
}

export async function computeObjects(session: string, options: ObjectsOptions, onProgress: (p: ObjectsProgress) => void = () => {}, shouldStop: () => boolean = () => false): Promise<ObjectsReport> {
  const db = openSessionDb(session, { readonly: true })
  try {
    const runs = readRuns(db)
    if (runs.length === 0) throw new StrideError(`${session} has no simulation run yet; simulate it first, e.g. stride simulate ${session} --cache L1:32K:8:64.`, 'invalid-input')
    const run = options.run === null ? runs[runs.length - 1]! : runs.find((r) => r.run === options.run)
    if (!run) throw new StrideError(`Run ${options.run} is not in ${session}; its runs are ${runs.map((r) => r.run).join(', ')}.`, 'not-found')
    const names = levelNames(run.config)
    const level = options.level === null ? 0 : names.indexOf(options.level)
    if (level < 0) throw new StrideError(`Level "${options.level}" is not in run ${run.run}; its levels are ${names.join(', ')}.`, 'invalid-input')
    const variables = allRows(db.prepare('SELECT name, kind, start, size FROM variables WHERE start IS NOT NULL AND size > 0'), { name: 'text', kind: 'text', start: 'number', size: 'number' }).map((v) => ({ ...v, kind: v.kind as VariableKind }))
    if (variables.length === 0)
      throw new StrideError(`${session} names no data structures (no placed variables): re-trace a program built with -g so misses can be attributed to its arrays.`, 'invalid-input')
    const table = new ObjectTable(variables.map((v) => ({ name: v.name, kind: v.kind, start: v.start, end: v.start + v.size })))
    const kindOf = new Map(variables.map((v) => [v.name, v.kind]))
    const kinds = readPointKinds(db)
    // The points' lines and names: for a transform's replay and the approximate methods only.
    let pointsRead: AccessPoint[] | null = null
    const points = () => (pointsRead ??= readPoints(db))
    const total = countEvents(db)
    const layout = run.config.layout && run.config.layout.length > 0 ? buildLayoutMap(await readPlacedVariables(db), run.config.layout) : null

    const wants = (k: ObjectMethodKind) => options.methods.includes(k)
    const wantsApprox = APPROX.some(wants)
    const perf = detectHardwareMisses()
    if (wantsApprox && options.approxSource === 'perf' && !perf.supported)
      throw new StrideError(`Hardware cache-miss sampling is not supported on this machine: ${perf.reason}; use simulated samples (--source simulated).`, 'tool-missing')

    const stored = getRow(db.prepare('SELECT read_misses + write_misses AS misses FROM run_levels WHERE run = ? AND level = ?'), { misses: 'number' }, run.run, level)
    const sampleEvery = options.sampleEvery ?? scaledPeriod(stored?.misses ?? 0)
    const stream = new MissStream({ config: run.config, pointKinds: kinds, level, mapAddresses: layout ? (f, t, n) => layout.apply(f, t, n) : null })
    // Stack locals have no fixed address (frames move): a miss in no placed object is the
    // stack local its reference touches, from the per-point histograms the trace recorded.
    const stack = stackLocalsByPoint(db, table.count)
    // Where the trace stored each access's data structure, a miss is the structure its access
    // touched (as the run counted it), and the exact ranking is the run's own figures.
    const columns = StoredChunkVariables.open(db, variableBound(db))
    const countedAt = performance.now()
    const counted = columns ? storedMisses(db, run.run, level, names[level]!) : null
    const byVariable = counted ? objectOfVariable(db, table, stack) : null
    const exact = new Float64Array(table.count + 1 + stack.names.length)
    const sampler = wants('sample') ? new MissSampler(sampleEvery, options.sampleInterval, exact.length - 1) : null
    const search = wants('search')
      ? nwaySearch(table, options, total)
      : null
    const approx = wantsApprox && options.approxSource === 'simulated' ? new MissSampler(options.approxEvery, options.approxEvery === 1 ? 'regular' : 'prime', kinds.length) : null
    const seconds = { exact: 0, sample: 0, search: 0, approx: 0 }
    let totalMisses = 0
    let done = 0
    let lastPost = 0
    // The next chunk decodes on the thread pool while this one is simulated (two sets of
    // arrays taken in turn: each chunk is done with before the next is asked for).
    // The exact ranking alone, from the run's own counts: nothing to replay. Its totals are the
    // run's (a warmed run's misses include what the rest of the program evicted, which a replay
    // of the function alone would not see).
    const replay = !(counted && options.methods.every((m) => m === 'exact'))
    if (!replay) {
      totalMisses = stored?.misses ?? counted!.reduce((a, o) => a + o.misses, 0)
      done = run.accesses
      seconds.exact = performance.now() - countedAt
    }
    const chain = replay ? await transformsOf(run.config, points) : null
    for await (const chunk of replay ? transformedAhead(iterateChunksAhead(db, kinds.length, { reuse: true }), chain) : []) {
      let t = performance.now()
      const misses = stream.run(chunk)
      const objects = new Int32Array(misses.count)
      if (byVariable) {
        const column = columns!.read(chunk, kinds.length)
        for (let i = 0; i < misses.count; i++) {
          const k = byVariable[column[misses.access[i]! - done]!] ?? table.count
          objects[i] = k
          exact[k]!++
        }
      } else
        for (let i = 0; i < misses.count; i++) {
          let k = table.resolve(misses.address[i]!)
          if (k < 0) k = stack.byPoint.get(misses.point[i]!) ?? table.count
          objects[i] = k
          exact[k]!++
        }
      totalMisses += misses.count
      seconds.exact += performance.now() - t
      if (sampler) {
        t = performance.now()
        for (let i = 0; i < misses.count; i++) sampler.observe(objects[i]!)
        seconds.sample += performance.now() - t
      }
      if (search && !search.done) {
        t = performance.now()
        // The timer fires between misses: advance the clock to each miss before counting it.
        for (let i = 0; i < misses.count && !search.done; i++) {
          search.clock(misses.access[i]!)
          search.observe(table.segment(misses.address[i]!))
        }
        search.clock(misses.accessesSoFar)
        seconds.search += performance.now() - t
      }
      if (approx) {
        t = performance.now()
        for (let i = 0; i < misses.count; i++) approx.observe(misses.point[i]!)
        seconds.approx += performance.now() - t
      }
      done += chunk.count
      const now = Date.now()
      if (now - lastPost > 200) {
        lastPost = now
        onProgress({ events: done, total })
        await new Promise((r) => setImmediate(r))
        if (shouldStop()) throw new StrideError('Stopped before the ranking was complete.', 'invalid-input')
      }
    }
    onProgress({ events: done, total })

    const nameOf = (k: number) => (k < table.count ? table.objects[k]!.name : k === table.count ? UNKNOWN_NAME : stack.names[k - table.count - 1]!)
    const kindAt = (k: number): VariableKind => (k < table.count ? table.objects[k]!.kind : k === table.count ? 'unknown' : 'stack')
    const fromCounts = (counts: Float64Array) => rankEstimates(Array.from(counts, (c, k) => ({ name: nameOf(k), kind: kindAt(k), misses: c })), totalMisses)
    const labels = { sampleEvery, ways: options.ways }
    const whole = `the whole run: ${count(done)} accesses, ${count(totalMisses)} ${names[level]} misses`
    const exactObjects = counted ? rankEstimates(counted, counted.reduce((a, o) => a + o.misses, 0)) : fromCounts(exact)
    const exactResult: ObjectMethodResult = { method: 'exact', kind: 'exact', objects: exactObjects, rho: null, cost: { seconds: seconds.exact / 1000 }, notes: [], coverage: `every miss of ${whole}` }
    const results: ObjectMethodResult[] = []
    const finish = (kind: ObjectMethodKind, objects: ObjectMethodResult['objects'], cost: ObjectMethodResult['cost'], notes: string[], coverage: string, why: (o: ObjectEstimate) => string) => {
      const listed = new Set(objects.map((o) => o.name))
      const absent: Record<string, string> = {}
      for (const o of exactObjects.slice(0, ABSENT_REASONS)) if (!listed.has(o.name) && o.misses > 0) absent[o.name] = why(o)
      results.push({ method: methodLabel({ kind }, labels), kind, objects, rho: rankError(exactObjects, objects), cost, notes, coverage, absent })
    }

    if (sampler) {
      const notes = sampler.samples < 100 ? [`only ${sampler.samples} samples: choose a smaller N for a steadier estimate`] : []
      if (options.sampleEvery === null) notes.push(`1 in ${sampleEvery} chosen for about ${count(TARGET_SAMPLES)} samples of the run's ${count(stored?.misses ?? 0)} misses`)
      finish('sample', fromCounts(sampler.counts), { samples: sampler.samples, period: sampler.period, seconds: seconds.sample / 1000 }, notes, `${count(sampler.samples)} sampled misses (1 in ${count(sampler.period)}) over ${whole}`, (o) =>
        `no sampled miss fell in it: it had ${count(o.misses)} misses, about ${(o.misses / sampler.period).toFixed(1)} samples' worth at 1 in ${count(sampler.period)}`
      )
    }
    if (search) {
      const r = search.result()
      const objects = rankEstimates(r.objects.map((o) => ({ name: nameOf(o.object), kind: kindAt(o.object), misses: o.fraction })), totalMisses)
      // Shares are the search's own estimates, not renormalized over the objects it found.
      for (const o of objects) {
        const f = r.objects.find((x) => nameOf(x.object) === o.name)!.fraction
        o.fraction = f
        o.misses = f * totalMisses
      }
      const notes: string[] = []
      if (r.convergedAt === null) notes.push('the run ended before the search converged: the objects listed are those resolved so far')
      else if (!r.converged) notes.push(`converged at access ${count(r.convergedAt)}, then reopened ${r.reopened} time${r.reopened === 1 ? '' : 's'} as other data began to miss; still searching when the run ended`)
      const coverage =
        r.measuredAccesses >= done
          ? `measured ${whole} (${count(r.interrupts)} interrupts${r.convergedAt !== null ? `; first converged at access ${count(r.convergedAt)}` : ''}${r.reopened > 0 ? `, reopened ${r.reopened}×` : ''})`
          : `measured accesses 0–${count(r.measuredAccesses)} of ${count(done)}: the rest of the run is not in its shares`
      finish('search', objects, { interrupts: r.interrupts, converged: r.convergedAt !== null, seconds: seconds.search / 1000 }, notes, coverage, (o) =>
        o.kind === 'stack'
          ? 'a stack local: its frame moves, and the search counts fixed address regions (its misses fall in the stack region)'
          : `not resolved to a single object: the ${options.ways - 1} counters went to regions with more misses (it holds ${(100 * o.fraction).toFixed(1)}%)`
      )
    }
    if (wantsApprox) {
      const t = performance.now()
      const perFile = options.approxSource === 'perf' ? await perfSamples(db, options.approxEvery) : simulatedSamples(points(), approx!)
      const models = new Map<string, FileModel | null>()
      // Only variables the session knows in memory are candidates (see restrictReads).
      const inMemory = new Set((allRows(db.prepare('SELECT DISTINCT name FROM variables'), { name: 'text' })).map((r) => r.name))
      for (const file of perFile.keys()) {
        const m = await modelFromFile(file)
        models.set(file, m && restrictReads(m, inMemory))
      }
      const notes: string[] = []
      const missing = [...models].filter(([, m]) => !m).map(([f]) => f)
      if (missing.length > 0) notes.push(`source not readable, its samples are not attributed: ${missing.join(', ')}`)
      if (options.skid && options.approxSource === 'simulated') moveBySkid(perFile, models, options.skid)
      const samples = [...perFile.values()].reduce((s, lines) => s + [...lines.values()].reduce((a, b) => a + b, 0), 0)
      const negation = options.skid ? gaussianSkid(-options.skid.mean, options.skid.sigma) : RUTAR_SKID
      const passes: Record<string, (m: FileModel, lines: Map<number, number>) => Cell[]> = {
        'approx-raw': (m, lines) => rawAssignment(m, lines),
        'approx-loop': (m, lines) => loopAdjust(m, rawAssignment(m, lines), options.loopThreshold),
        'approx-skid': (m, lines) => loopAdjust(m, skidNegate(m, lines, negation), options.loopThreshold)
      }
      const base = (performance.now() - t + seconds.approx) / 1000
      for (const kind of APPROX) {
        if (!wants(kind)) continue
        const t2 = performance.now()
        const cells: Cell[] = []
        for (const [file, lines] of perFile) {
          const m = models.get(file)
          if (m) cells.push(...passes[kind]!(m, lines))
        }
        const sums = sumByVariable(cells)
        const objects = rankEstimates([...sums].map(([name, v]) => ({ name, kind: kindOf.get(name) ?? 'stack', misses: v })), totalMisses)
        const own = kind === 'approx-skid' && !options.skid && options.approxSource === 'simulated' ? ['simulated misses have no skid (simulated skid is off): this spreads exact lines over their neighbours; turn simulated skid on to see what negation corrects'] : []
        // What the raw split gave a share but a later pass took it from (loop weights).
        const raw = kind === 'approx-raw' ? null : new Set(results.find((r) => r.kind === 'approx-raw')?.objects.map((x) => x.name) ?? [])
        finish(kind, objects, { samples, seconds: base + (performance.now() - t2) / 1000 }, [...notes, ...own], `${count(samples)} instruction samples (1 per ${count(options.approxEvery)} misses) over ${whole}`, (o) =>
          raw?.has(o.name) ? 'the raw split gave it a share, loop compensation none: its reads weigh like a loop index read on every iteration' : approxAbsence(o, inMemory, missing)
        )
      }
    }
    return { session, run: run.run, level: names[level]!, accesses: done, totalMisses, exact: exactResult, methods: results, perf }
  } finally {
    db.close()
  }
}

/** Rows of exact's list that get a reason when a method does not list them. */
const ABSENT_REASONS = 50
const count = (n: number) => Math.round(n).toLocaleString('en-US')

/** Why Rutar's approximation, which only knows the variables the source lines read, has no share for `o`. */
function approxAbsence(o: ObjectEstimate, inMemory: Set<string>, unreadable: string[]): string {
  if (o.name === UNKNOWN_NAME) return 'addresses in no known data structure: an instruction sample can only name the variables its line reads'
  if (o.kind === 'heap') return "a heap block: source lines name the pointer that reaches it, not the block, so instruction samples cannot be given to it (the exact and Buck's methods see its addresses)"
  if (!inMemory.has(o.name)) return 'not a variable the session places in memory, so no source read is attributed to it'
  if (unreadable.length > 0) return `no readable source line that reads it took a sample (unreadable: ${unreadable.join(', ')})`
  return 'no sampled source line reads it by name (its misses come from lines that reach it through a pointer or a macro)'
}

/** Sampled misses per point -> samples per file and line. */
function simulatedSamples(points: AccessPoint[], sampler: MissSampler): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>()
  points.forEach((p, i) => {
    const n = sampler.counts[i]!
    if (n === 0 || !p.file || !p.line) return
    const lines = out.get(p.file) ?? new Map<number, number>()
    lines.set(p.line, (lines.get(p.line) ?? 0) + n)
    out.set(p.file, lines)
  })
  return out
}

/** Simulated skid: each sample's line moves forward by an offset drawn from Gaussian(mean, sigma) in code lines. */
function moveBySkid(perFile: Map<string, Map<number, number>>, models: Map<string, FileModel | null>, skid: { mean: number; sigma: number }): void {
  const dist = gaussianSkid(skid.mean, skid.sigma)
  const rand = random(0x5eed)
  for (const [file, lines] of perFile) {
    const model = models.get(file)
    if (!model) continue
    const moved = new Map<number, number>()
    for (const [line, n] of lines)
      for (let s = 0; s < n; s++) {
        const to = stepLines(model, line, pick(dist, rand())) ?? line
        moved.set(to, (moved.get(to) ?? 0) + 1)
      }
    perFile.set(file, moved)
  }
}

async function perfSamples(db: ReturnType<typeof openSessionDb>, every: number): Promise<Map<string, Map<number, number>>> {
  const meta = (key: string) => {
    const row = getRow(db.prepare('SELECT value FROM meta WHERE key = ?'), { value: 'text' }, key)
    return row ? (JSON.parse(row.value) as unknown) : null
  }
  const program = meta('program')
  if (typeof program !== 'string') throw new StrideError('The session does not record its program; re-trace it to sample it with perf.', 'malformed-session')
  return recordLineSamples(program, (meta('args') as string[] | null) ?? [], every)
}

/**
 * Intervals lengthen while a region misses nothing (Buck 2.2), but never beyond a tenth of the
 * run: past that the search sees the run's last phases in one or two interrupts and cannot
 * reopen when data it dropped misses again (reuse's C was lost that way).
 */
function nwaySearch(table: ObjectTable, options: { ways: number; threshold?: number; searchInterval?: number | null }, total: number): NwaySearch {
  const intervalAccesses = options.searchInterval ?? Math.max(1000, Math.round(total / 50))
  return new NwaySearch(table, {
    ways: options.ways,
    threshold: options.threshold,
    intervalAccesses,
    minAccesses: Math.round(total / 10),
    maxLengthening: Math.max(1, Math.floor(total / 10 / intervalAccesses))
  })
}

/** Ids of the session's data structures are below this. */
function variableBound(db: Db): number {
  return (getRow(db.prepare('SELECT COALESCE(MAX(id), 0) + 1 AS n FROM variables'), { n: 'number' }) ?? { n: 1 }).n
}

/**
 * The run's misses at `level` per data structure, as its report rolls them up (each access's
 * structure as the simulator counted it); null when the run has no such counts (an older
 * session): then each miss is resolved by its address, as before.
 */
function storedMisses(db: Db, run: number, level: number, name: string): ExactCounts | null {
  // The trace stored them with its first run (view-cache.ts); any other run's come from its report.
  const stored = readView(db, run, 'objects-exact', name)
  if (isExactCounts(stored)) return stored
  return exactCountsOf(buildReport(db, run), level)
}

/** Per data structure, its misses at a level as a run's report counted them. */
export type ExactCounts = Array<{ name: string; kind: VariableKind; misses: number }>

function isExactCounts(x: unknown): x is ExactCounts {
  return Array.isArray(x) && x.every((o) => typeof o === 'object' && o !== null && typeof o.name === 'string' && VARIABLE_KINDS.includes(o.kind) && Number.isFinite(o.misses) && o.misses >= 0)
}

/**
 * Per data structure, its misses at level `level` (an index into the run's levels) as the run
 * counted them access by access; null when the run split some reference's figures by shares
 * (a session from before the per-access data-structure column: the ranking replays the trace).
 */
export function exactCountsOf(report: RunReport, level: number): ExactCounts | null {
  if (!report.references.every((r) => !r.touches || r.touches.every((t) => t.levels))) return null
  const name = levelNames(report.config)[level]!
  return groupVariables(report).map((v) => ({ name: v.variable === 'unknown' ? UNKNOWN_NAME : v.variable, kind: v.kind ?? 'unknown', misses: v.levels[name]?.misses ?? 0 }))
}

/**
 * Per variable id, the object index a miss in it counts for: its placed object of that name,
 * else its stack local's slot, else unknown (names merge as the report merges them).
 */
function objectOfVariable(db: Db, table: ObjectTable, stack: { names: string[] }): Int32Array {
  const rows = allRows(db.prepare('SELECT id, name, kind FROM variables'), { id: 'int', name: 'text', kind: 'text' })
  const placed = new Map<string, number>()
  table.objects.forEach((o, k) => {
    if (!placed.has(o.name)) placed.set(o.name, k)
  })
  const stackIndex = new Map(stack.names.map((n, i) => [n, table.count + 1 + i]))
  const out = new Int32Array(rows.reduce((a, r) => Math.max(a, r.id + 1), 1)).fill(table.count)
  for (const r of rows) out[r.id] = placed.get(r.name) ?? stackIndex.get(r.name) ?? table.count
  return out
}

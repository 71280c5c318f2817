/**
 * `stride simulate SESSION --cache NAME:SIZE:ASSOC:LINE ...` (CLI.md), with TLB levels,
 * layout filters (--pad, --pad-dim, --dims) and sweeps (--config, repeatable, or --configs
 * FILE.json) run in parallel on a worker pool.
 */
import { lockSessionForRuns } from '../store/session-lock'
import { readInputFile } from './input-file'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import type { HierarchyConfig, LayoutFilter, LoopTransform, RunId, RunReport } from '../../shared/domain'
import { parseSize } from '../../shared/sizes'
import { checkCompatible, checkConfig, parseLevels, parseTlbs, usage } from './hierarchy-flags'
import { lineReportOfRun, readRun, reportOfRun } from '../store/runs'
import type { KeptRun } from '../store/run-rows'
import type { PendingRun } from '../workers/protocol'
import { foldLog, type Db } from '../store/open-db'
import { openSessionDb } from '../store/session-reader'
import { SessionStatics } from '../store/session-statics'
import { JobError, runSimulatePool, taskPool } from '../workers/run-worker'
import { StrideError } from '../../shared/errors'
import { flag, flags, has, HIERARCHY_FLAGS, parseArgs, positiveInt, type ParsedArgs } from './args'
import { heldIo, type Io } from './io'
import { groupDigits } from '../../shared/counts'
import { loadCollation } from '../../shared/report-model'
import { diffJson, printDiff, printLineReport, printReport, printSweep, reportJson, type TableOptions } from './report-output'

export const SIMULATE_HELP = `stride simulate SESSION.stride [--cache NAME:SIZE:ASSOC:LINE[:POLICY[:OPTIONS]] ...]
        [--tlb NAME:ENTRIES:ASSOC:PAGE[:POLICY]] ... [--pad VAR=BYTES] ... [--pad-dim VAR=DIM:EXTENT[:row|col]] ...
        [--dims VAR=D0xD1[x...][@ELEMENT_BYTES]] ... [--transform interchange:FILE:LINE | tile:FILE:LINE:B] ... [--config "SPEC;SPEC;..."] ... [--configs FILE.json]
        [--jobs N] [--interval N] [--no-baseline] [--cachegrind-compatible] [--all] [--json]
        [--cores N [--place T:C,...] [--interleave N]]
  --cache  a cache level, innermost first (default: the host's D1 and LL as Cachegrind simulates them; stride hierarchy shows them)
  POLICY   lru (default) | fifo | plru | random
  OPTIONS  comma-separated: wb|wt (write-back default), wa|nwa (write-allocate default), incl, pf=next|pf=stride, seed=N,
           shared (with --cores: one instance for all cores)
  --tlb        a data TLB level (at most two, innermost first), e.g. DTLB:64:4:4K
  --pad        external padding: VAR and everything laid out after it move up BYTES
  --pad-dim    internal padding: dimension DIM of VAR (0 = outermost) grows to EXTENT (row-major unless :col)
  --dims       VAR's dimensions, outermost first, and element size, when the session does not know them
  --transform  a code change simulated on the recorded trace: interchange swaps the loop whose header is at
               FILE:LINE with the loop directly inside it; tile tiles both with tiles of B x B iterations.
               Refused, with the reason, where the nest is not a perfect affine nest (docs/TRANSFORMS.md)
  --config     one hierarchy of a sweep: level specs separated by ";", TLB levels as tlb=NAME:ENTRIES:ASSOC:PAGE
  --configs    a JSON file: an array of {"levels": [...], "tlb": [...]} (the API's hierarchy objects)
  --jobs       workers for a sweep (default: the machine's cores)
  --cores      simulate N cores: threads placed round-robin (or --place THREAD:CORE,...), levels private per core
               unless their OPTIONS say shared; MESI-style invalidation; coherence misses split into true and
               false sharing, and the lines threads share found whatever the schedule (printed, not stored)
  --interleave with --cores: the threads' accesses round-robin, N per turn (default: the recorded order, in which
               Valgrind ran each thread for long slices)
  --interval   accesses per interval of the per-variable miss timeline (default: the smallest power of two
               that fits the run in 100 intervals)
  --all        every line in the table (default: as cg_annotate, the lines holding 0.1% or more of some column)
  With a layout filter the unpadded run is simulated too (unless --no-baseline) and the difference shown.`






/** `--config "L1:32K:8:64;L2:256K:8:64;tlb=DTLB:64:4:4K"`. */
function parseConfigSpec(text: string): { levels: HierarchyConfig['levels']; tlb: NonNullable<HierarchyConfig['tlb']> | null } {
  const items = text.split(/[;\s]+/).filter((s) => s !== '')
  const tlb = items.filter((s) => s.startsWith('tlb=')).map((s) => s.slice(4))
  const caches = items.filter((s) => !s.startsWith('tlb='))
  if (caches.length === 0) usage(`--config "${text}" names no cache level; e.g. --config "L1:32K:8:64;L2:256K:8:64".`)
  return { levels: parseLevels(caches), tlb: tlb.length > 0 ? parseTlbs(tlb) : null }
}

function parseLayout(pads: string[], padDims: string[], dimsSpecs: string[]): LayoutFilter[] {
  const filters: LayoutFilter[] = []
  for (const p of pads) {
    const m = /^([^=]+)=(.+)$/.exec(p)
    const bytes = m ? parseSize(m[2]!) : null
    if (!m || bytes === null) usage(`--pad "${p}" must look like VAR=BYTES, e.g. --pad B=1K.`)
    filters.push({ kind: 'external', variable: m[1]!, bytes })
  }
  const dims = new Map<string, { dims: number[]; elementSize?: number }>()
  for (const d of dimsSpecs) {
    const m = /^([^=]+)=(\d+(?:x\d+)*)(?:@(\d+))?$/.exec(d)
    if (!m) usage(`--dims "${d}" must look like VAR=D0xD1[@ELEMENT_BYTES], outermost first, e.g. --dims A=1000x1000@8.`)
    dims.set(m[1]!, { dims: m[2]!.split('x').map(Number), ...(m[3] ? { elementSize: Number(m[3]) } : {}) })
  }
  for (const p of padDims) {
    const m = /^([^=]+)=(\d+):(\d+)(?::(row|col|column))?$/.exec(p)
    if (!m) usage(`--pad-dim "${p}" must look like VAR=DIM:EXTENT[:row|col], e.g. --pad-dim A=1:1001 (dimension 1 of A grows to 1001).`)
    const given = dims.get(m[1]!)
    filters.push({ kind: 'internal', variable: m[1]!, dim: Number(m[2]), extent: Number(m[3]), order: m[4] && m[4] !== 'row' ? 'column' : 'row', ...(given ?? {}) })
  }
  for (const name of dims.keys())
    if (!padDims.some((p) => p.startsWith(`${name}=`))) usage(`--dims ${name} is only used with --pad-dim ${name}=DIM:EXTENT; add one or leave --dims out.`)
  return filters
}


/** `--transform interchange:FILE:LINE` and `--transform tile:FILE:LINE:B`. */
export function parseTransforms(specs: string[]): LoopTransform[] {
  return specs.map((spec) => {
    const interchange = /^interchange:(.+):(\d+)$/.exec(spec)
    if (interchange && !/:\d+$/.test(interchange[1]!) && Number(interchange[2]) >= 1) return { kind: 'interchange', file: interchange[1]!, line: Number(interchange[2]) }
    const tile = /^tile:(.+):(\d+):(\d+)$/.exec(spec)
    if (tile && Number(tile[2]) >= 1 && Number(tile[3]) >= 1) return { kind: 'tile', file: tile[1]!, line: Number(tile[2]), tile: Number(tile[3]) }
    if (/^tile:/.test(spec)) usage(`--transform "${spec}" must look like tile:FILE:LINE:B (B: iterations per tile side, 1 or more), e.g. --transform tile:transpose.c:9:16.`)
    usage(`--transform "${spec}" must look like interchange:FILE:LINE or tile:FILE:LINE:B (lines from 1), e.g. --transform interchange:mult.c:24.`)
  })
}

/**
 * Fails early, in the user's terms, when a layout filter cannot be applied to this session.
 * Its modules load here: the program's ELF reader took ~5 ms of every what-if's start.
 */
async function checkLayout(path: string, layout: LayoutFilter[]): Promise<void> {
  const [{ readPlacedVariables }, { buildLayoutMap }] = await Promise.all([import('../session-analysis/placed-variables'), import('../simulate/layout-filter')])
  const db = openSessionDb(path, { readonly: true })
  let variables
  try {
    variables = await readPlacedVariables(db)
  } finally {
    db.close()
  }
  try {
    buildLayoutMap(variables, layout)
  } catch (e) {
    const why = (e as Error).message
    if (/is not known/.test(why)) {
      const known = variables.map((v) => v.name).slice(0, 12)
      usage(`${why}; known variables: ${known.length ? known.join(', ') : 'none (the session has no data symbols)'}.`)
    }
    if (/dimensions of/.test(why)) usage(`${why.replace(/give them \(e\.g\. (.*)\)/, 'give them with --dims $1 (outermost first, @element bytes)')}.`)
    usage(`${why}.`)
  }
}

/** `--cores N`: its own path (cores-command.ts); the one-hierarchy path above is not touched by it. */
async function simulateOnCores(session: string, cores: string, args: ParsedArgs, layout: LayoutFilter[], io: Io): Promise<number> {
  for (const f of ['tlb', 'config', 'configs', 'cachegrind-compatible', 'interval', 'jobs', 'all'] as const)
    if (flags(args, f).length > 0 || has(args, f)) usage(`--${f} does not go with --cores (a multi-core run has its own levels and prints its own report); leave it out.`)
  const { coresCommand, parseCoresRequest } = await import('./cores-command')
  const request = parseCoresRequest({ cores, place: flag(args, 'place') ?? null, interleave: flag(args, 'interleave') ?? null, caches: flags(args, 'cache'), layout, json: has(args, 'json') })
  const path = resolve(session)
  openSessionDb(path, { readonly: true }).close()
  if (layout.length > 0) await checkLayout(path, layout)
  return coresCommand(path, request, has(args, 'json'), io)
}

function withSession<T>(path: string, readonly: boolean, f: (db: Db) => T): T {
  const db = openSessionDb(path, { readonly })
  try {
    return f(db)
  } finally {
    db.close()
  }
}

export async function simulateCommand(argv: string[], io: Io): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(SIMULATE_HELP)
    return 0
  }
  // The worker starts now (a thread loading its modules, ~0.1 s), on the other core while this
  // one parses, checks, and loads the API's schemas (zod, ~60 ms) for the configurations.
  taskPool.warm()
  const { hierarchySchema } = await import('../../shared/schemas')
  const args = parseArgs(
    argv,
    {
      ...HIERARCHY_FLAGS,
      pad: { value: true, repeat: true },
      'pad-dim': { value: true, repeat: true },
      dims: { value: true, repeat: true },
      transform: { value: true, repeat: true },
      config: { value: true, repeat: true },
      configs: { value: true },
      jobs: { value: true },
      interval: { value: true },
      'no-baseline': {},
      all: {},
      json: {},
      cores: { value: true },
      place: { value: true },
      interleave: { value: true }
    },
    'simulate'
  )
  const session = args.positional[0]
  if (!session || args.positional.length > 1) usage('give one session file, e.g. stride simulate s.stride --cache L1:32K:8:64.')
  const compatible = has(args, 'cachegrind-compatible')
  const sharedTlb = parseTlbs(flags(args, 'tlb'))
  const layout = parseLayout(flags(args, 'pad'), flags(args, 'pad-dim'), flags(args, 'dims'))
  const transforms = parseTransforms(flags(args, 'transform'))
  const interval = flag(args, 'interval') ? positiveInt(flag(args, 'interval')!, '--interval', 'simulate') : null
  const cores = flag(args, 'cores')
  if (cores !== undefined) {
    // Its own path, in this thread: the warm worker is not needed.
    taskPool.retireIdle()
    return simulateOnCores(session, cores, args, layout, io)
  }
  if (flag(args, 'place') || flag(args, 'interleave')) usage('--place and --interleave go with --cores N, e.g. --cores 2 --place 1:0,2:1.')

  // The hierarchies to simulate: --cache levels, and/or each --config, and/or --configs FILE.
  const raws: Array<{ raw: unknown; what: string }> = []
  const specs = flags(args, 'cache')
  if (specs.length > 0) raws.push({ raw: { levels: parseLevels(specs), tlb: sharedTlb }, what: `--cache ${specs.join(' --cache ')}` })
  for (const c of flags(args, 'config')) {
    const parsed = parseConfigSpec(c)
    raws.push({ raw: { levels: parsed.levels, tlb: parsed.tlb ?? sharedTlb }, what: `--config "${c}"` })
  }
  const file = flag(args, 'configs')
  if (file) {
    let list: unknown
    const text = readInputFile(file, '--configs', 'simulate')
    try {
      list = JSON.parse(text)
    } catch (e) {
      usage(`--configs ${file}: ${(e as Error).message.slice(0, 120)}; give a JSON array of {"levels": [...]} objects.`)
    }
    if (!Array.isArray(list) || list.length === 0) usage(`--configs ${file} must hold a non-empty JSON array of {"levels": [...]} objects.`)
    list.forEach((c, i) => raws.push({ raw: { tlb: sharedTlb, ...(c as object) }, what: `--configs ${file} [${i}]` }))
  }
  if (raws.length === 0) {
    // Cachegrind's default: the host's D1 and LL (said on stderr; the run's label names them).
    const { hostHierarchy } = await import('../services/host-hierarchy')
    const host = hostHierarchy()
    io.err(`stride simulate: no --cache, so the host's caches. ${host.note}`)
    raws.push({ raw: { levels: host.config.levels, tlb: sharedTlb }, what: `the host's caches (${host.summary})` })
  }
  const configs = raws.map(({ raw, what }) =>
    checkConfig(hierarchySchema, { ...(raw as object), cachegrindCompatible: compatible, ...(layout.length ? { layout } : {}), ...(transforms.length ? { transforms } : {}), ...(interval ? { timelineInterval: interval } : {}) }, what)
  )
  if (compatible) for (const c of configs) checkCompatible(c)

  const path = resolve(session)
  // Opened to write, as storing the runs will: a session that cannot be written is said now,
  // not after the simulation, and one from an older Stride is upgraded in place once, not in a
  // private copy by each reader first.
  openSessionDb(path).close()
  // Said now, not after the simulation: a trace is writing this session (each task takes the lock too).
  lockSessionForRuns(path, 'stride simulate').release()
  if (layout.length > 0) await checkLayout(path, layout)
  const baseline = layout.length > 0 && !has(args, 'no-baseline')
  // Job list: each config, then (with a layout filter) the same config unpadded.
  const jobs = configs.flatMap((config) => {
    if (!baseline) return [config]
    const { layout: _, ...plain } = config
    return [config, plain]
  })
  const poolSize = flag(args, 'jobs') ? positiveInt(flag(args, 'jobs')!, '--jobs', 'simulate') : availableParallelism()
  return simulateAndPrint(path, jobs, { baseline, poolSize, json: has(args, 'json'), all: has(args, 'all') }, io)
}

/**
 * Simulates `jobs` on the session (a sweep over up to `poolSize` workers), then prints the run
 * as `stride simulate` does (or its JSON); with `baseline`, jobs come in (padded, unpadded)
 * pairs and their difference is printed too. Also `stride trace --cache`'s first simulation.
 */
export async function simulateAndPrint(path: string, jobs: HierarchyConfig[], options: { baseline: boolean; poolSize: number; json: boolean; command?: string } & TableOptions, io: Io): Promise<number> {
  const { baseline, poolSize } = options
  const started = Date.now()
  // Each run as its worker stores it: the reports are built and printed while the workers
  // write (~0.1 s for a whole-program session), not after.
  const pending: Array<PendingRun | undefined> = new Array(jobs.length)
  let handedOut = 0
  let everyRunPending: () => void = () => {}
  const allPending = new Promise<'pending'>((r) => (everyRunPending = () => r('pending')))
  const handle = runSimulatePool(
    path,
    jobs,
    poolSize,
    (p) => {
      const s = (Date.now() - started) / 1000
      // Formatted only when shown (a terminal).
      io.progress(() => {
        const pct = p.total ? ` of ${groupDigits(p.total)}` : ''
        return `simulating ${p.finished}/${p.jobs} runs: ${groupDigits(p.events)}${pct} accesses, ${groupDigits(p.events / Math.max(s, 1e-3))}/s, ${s.toFixed(1)} s`
      })
    },
    (p) => {
      if (pending[p.index]) return
      pending[p.index] = p
      if (++handedOut === jobs.length) everyRunPending()
    }
  )
  // Observed from the start: a worker that fails before this thread's next turn (a damaged
  // chunk found while this thread waits, or is descheduled under load) would otherwise be an
  // unhandled rejection, a stack instead of the one line. The failure itself is thrown by the
  // `await handle.result` below.
  const finished = handle.result.then(
    () => 'finished' as const,
    () => 'finished' as const
  )
  const stop = () => handle.stop()
  process.once('SIGINT', stop)
  try {
    // What the reports take from the session and no run changes (points, touches, data
    // structures, loops): read while the workers simulate (after one turn of the event
    // loop, in which the pool starts its workers), not after them.
    await new Promise((r) => setImmediate(r))
    // The CLI's tables and JSON show no stream metrics, and no client keeps its reports' statics.
    const statics = new SessionStatics({ streams: false, keyed: false })
    // One connection for the reports and the last fold of the log, opened (and checked, unless
    // this thread just did) once: runs the workers store meanwhile change the file, so each
    // open after them would read the whole point table again.
    let db: Db
    try {
      db = openSessionDb(path)
      try {
        // The tables need each point's line only (and the lines' order: the collation's first
        // use loads its data); JSON and a baseline's differences, whole reports.
        if (!options.json && !baseline) statics.linePlan(db)
        else {
          statics.points(db)
          statics.touches(db)
          statics.variables(db)
          statics.loops(db)
          loadCollation()
        }
      } catch (e) {
        db.close()
        throw e
      }
    } catch (e) {
      // A session the reports cannot read: the workers stop rather than store runs the
      // command then says nothing of, and end before the error is said.
      handle.stop()
      await finished
      throw e
    }
    try {
      if ((await Promise.race([allPending, finished])) === 'pending') {
        io.progress(null)
        // Built while the workers store the runs, printed once they are stored: a reader that
        // leaves early (`| head -1`, a broken pipe ends the process) must not cost the runs.
        const held = heldIo(io)
        const printed = printStoredRuns(db, pending.map((p) => p!.run), statics, options, held, pending.map((p) => p!.rows))
        // The runs are in the file only now: a failure to store them is said after their tables.
        await handle.result.catch((e: unknown) => {
          held.flush()
          const why = e instanceof Error ? e.message : String(e)
          const code = e instanceof StrideError ? e.code : 'internal'
          const fix = code === 'malformed-session' && !/re-trace/.test(why) ? '; re-trace the program' : ''
          throw new JobError(`the run${jobs.length > 1 ? 's' : ''} shown above could not be stored in ${path}, which is as it was: ${why}${fix}`, code, path)
        })
        taskPool.retireIdle()
        foldLog(db)
        held.flush()
        return printed
      }
      const done = await handle.result
      // Nothing else runs on the pool in this command.
      taskPool.retireIdle()
      io.progress(null)
      // A worker's runs are folded into the file when it closes, unless a reader (this one)
      // still held older pages then: fold again now that none does.
      foldLog(db)
      if (done.some((d) => d.run === null)) usage('cancelled; runs that finished are stored, the others are not.', options.command)
      return printStoredRuns(db, done.map((d) => d.run!), statics, options, io)
    } finally {
      db.close()
    }
  } finally {
    process.off('SIGINT', stop)
  }
}

/**
 * Stored runs printed as `stride simulate` prints them (with a baseline: each run followed by
 * its baseline). `statics` may hold what the reports read already; `records[i]`, what was
 * stored of `runs[i]` (storeRun's rows, handed out ahead of its commit), read from the file if
 * not given.
 */
export function printRuns(path: string, runs: RunId[], statics: SessionStatics, options: { baseline: boolean; json: boolean } & TableOptions, io: Io, records?: KeptRun[]): number {
  return withSession(path, true, (db) => printStoredRuns(db, runs, statics, options, io, records))
}

/** `printRuns` over the session opened as `db`. */
function printStoredRuns(db: Db, runs: RunId[], statics: SessionStatics, options: { baseline: boolean; json: boolean } & TableOptions, io: Io, records?: KeptRun[]): number {
  const { baseline } = options
  const stored = (i: number) => records?.[i] ?? readRun(db, runs[i]!, statics)
  // The tables need each run's totals and lines only; JSON and a baseline's differences, whole reports.
  if (!options.json && !baseline) {
    const reports = runs.map((run, i) => lineReportOfRun(db, run, stored(i), statics))
    if (reports.length > 1) printSweep(reports, io)
    else printLineReport(reports[0]!, io, options)
    return 0
  }
  const reports = runs.map((run, i) => reportOfRun(db, run, stored(i), statics))
  // Pairs (padded, unpadded) when there is a baseline.
  const step = baseline ? 2 : 1
  const outputs: Array<{ report: RunReport; base: RunReport | null }> = []
  for (let i = 0; i < reports.length; i += step) outputs.push({ report: reports[i]!, base: baseline ? reports[i + 1]! : null })
  if (options.json) {
    const one = (o: { report: RunReport; base: RunReport | null }) =>
      o.base ? { ...(reportJson(o.report) as object), baseline: o.base.run, diff: diffJson(o.base, o.report) } : reportJson(o.report)
    io.out(JSON.stringify(outputs.length === 1 ? one(outputs[0]!) : { runs: outputs.map(one) }, null, 2))
    return 0
  }
  if (outputs.length > 1) printSweep(outputs.map((o) => o.report), io)
  for (const o of outputs) {
    if (outputs.length === 1) printReport(o.report, 'line', io, options)
    if (o.base) {
      if (outputs.length > 1) io.out('')
      io.out('')
      printDiff(o.base, o.report, 'variable', io, options)
    }
  }
  return 0
}

/**
 * `stride objects SESSION [--run N] [--level NAME] --method exact|sample:N|search:WAYS|approx:raw|approx:loop|approx:skid [--json]`:
 * data structures ranked by the misses they cause, by one method, next to exact (rho, cost).
 */
import { StrideError } from '../../shared/errors'
import type { ObjectMethodKind, ObjectMethodResult, ObjectsOptions, SamplingIntervalKind } from '../../shared/domain'
import { computeObjects, DEFAULT_OBJECTS_OPTIONS } from '../session-analysis/session-objects'
import { flag, has, parseArgs, positiveInt } from './args'
import { progressLine, type Io } from './io'

const METHOD_HELP = 'exact, sample[:N], search:WAYS, approx:raw, approx:loop or approx:skid'

export function parseMethod(text: string): { kind: ObjectMethodKind; n: number | null } {
  const m = /^(exact|sample|search|approx)(?::(.+))?$/.exec(text)
  const bad = () => new StrideError(`stride objects: --method must be ${METHOD_HELP}, not "${text}".`)
  if (!m) throw bad()
  const [, name, arg] = m
  if (name === 'exact') {
    if (arg !== undefined) throw bad()
    return { kind: 'exact', n: null }
  }
  if (name === 'approx') {
    if (arg !== 'raw' && arg !== 'loop' && arg !== 'skid') throw bad()
    return { kind: `approx-${arg}`, n: null }
  }
  // A period scaled to the run (about 1,000 samples) unless one is given.
  if (name === 'sample' && (arg === undefined || arg === 'auto')) return { kind: 'sample', n: null }
  if (arg === undefined) throw new StrideError(`stride objects: --method ${name} needs a number, e.g. search:10.`)
  const n = positiveInt(arg, `--method ${name}:N`, 'objects')
  if (name === 'search' && n < 2) throw new StrideError('stride objects: an n-way search needs at least 2 ways, e.g. search:10.')
  return { kind: name as 'sample' | 'search', n }
}

function share(x: number): number {
  if (!Number.isFinite(x) || x < 0 || x > 1) throw new StrideError(`stride objects: --threshold must be a share between 0 and 1, e.g. 0.01.`)
  return x
}

function parseSkid(text: string): { mean: number; sigma: number } {
  const m = /^(-?\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(text)
  if (!m) throw new StrideError(`stride objects: --skid takes MEAN:SIGMA in source lines, e.g. 1:0.7 (samples land one line late on average), not "${text}".`)
  return { mean: Number(m[1]), sigma: Number(m[2]) }
}

const OBJECTS_HELP = `usage: stride objects SESSION.stride [--run N] [--level NAME] --method METHOD [options] [--json]
Ranks the data structures by the misses they cause at one level of a stored run (simulated
again over the trace), by one method next to the exact ranking.
  --method exact          every miss attributed by its address (the reference)
           sample[:N]     1 in N misses (Buck 2.1; without N: scaled to the run for about 1,000 samples);
                          --interval prime (default: next prime >= N) | random | regular
           search:WAYS    n-way search over address regions (Buck 2.2); --threshold SHARE (0.01),
                          --search-interval ACCESSES (default: 1/50 of the trace); cost = interrupts;
                          it keeps measuring after it converges and reopens when other data misses
           approx:raw     a line's misses split over its reads (Rutar 3.3.1)
           approx:loop    + loop compensation (equations 1-5); --loop-threshold W (0.75)
           approx:skid    skid negation (equations 6-8) + loop compensation
  approximate options: --every N (1 instruction sample per N misses; 1), --skid MEAN:SIGMA (simulated
           skid in source lines, e.g. 1:0.7; negated with the same model), --source simulated | perf
  --json   { "objects": [ { "name", "kind", "misses", "fraction", "rank" } ], "cost": {...}, "rho" }`

export async function objectsCommand(argv: string[], io: Io): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(OBJECTS_HELP)
    return 0
  }
  const args = parseArgs(
    argv,
    { run: { value: true }, level: { value: true }, method: { value: true }, interval: { value: true }, threshold: { value: true }, 'search-interval': { value: true }, every: { value: true }, 'loop-threshold': { value: true }, skid: { value: true }, source: { value: true }, json: {} },
    'objects'
  )
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride objects: give one session file, e.g. stride objects s.stride --method sample:1009.')
  const method = parseMethod(flag(args, 'method') ?? 'exact')
  const interval = (flag(args, 'interval') ?? 'prime') as SamplingIntervalKind
  if (!['prime', 'random', 'regular'].includes(interval)) throw new StrideError(`stride objects: --interval must be prime, random or regular, not "${interval}".`)
  const source = flag(args, 'source') ?? 'simulated'
  if (source !== 'simulated' && source !== 'perf') throw new StrideError(`stride objects: --source must be simulated or perf, not "${source}".`)
  const options: ObjectsOptions = {
    ...DEFAULT_OBJECTS_OPTIONS,
    run: flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'objects') : null,
    level: flag(args, 'level') ?? null,
    methods: method.kind === 'exact' ? ['exact'] : ['exact', method.kind],
    sampleEvery: method.kind === 'sample' ? method.n : DEFAULT_OBJECTS_OPTIONS.sampleEvery,
    sampleInterval: interval,
    ways: method.kind === 'search' ? method.n! : DEFAULT_OBJECTS_OPTIONS.ways,
    threshold: flag(args, 'threshold') ? share(Number(flag(args, 'threshold'))) : DEFAULT_OBJECTS_OPTIONS.threshold,
    searchInterval: flag(args, 'search-interval') ? positiveInt(flag(args, 'search-interval')!, '--search-interval', 'objects') : null,
    approxEvery: flag(args, 'every') ? positiveInt(flag(args, 'every')!, '--every', 'objects') : DEFAULT_OBJECTS_OPTIONS.approxEvery,
    loopThreshold: flag(args, 'loop-threshold') ? share(Number(flag(args, 'loop-threshold'))) : DEFAULT_OBJECTS_OPTIONS.loopThreshold,
    skid: flag(args, 'skid') ? parseSkid(flag(args, 'skid')!) : null,
    approxSource: source
  }
  const started = Date.now()
  const report = await computeObjects(session, options, (p) => io.progress(progressLine('simulating', p.events, started)))
  io.progress(null)
  const result: ObjectMethodResult = method.kind === 'exact' ? report.exact : report.methods[0]!
  if (has(args, 'json')) {
    io.out(
      JSON.stringify(
        {
          run: report.run,
          level: report.level,
          method: result.method,
          totalMisses: report.totalMisses,
          objects: result.objects.map((o) => ({ name: o.name, kind: o.kind, misses: Math.round(o.misses * 100) / 100, fraction: o.fraction, rank: o.rank })),
          cost: { ...result.cost, exactSeconds: report.exact.cost.seconds },
          rho: result.rho,
          notes: result.notes,
          coverage: result.coverage ?? null,
          absent: result.absent ?? {}
        },
        null,
        2
      )
    )
    return 0
  }
  const exactRank = new Map(report.exact.objects.map((o) => [o.name, o]))
  io.out(`${result.method} at ${report.level}, run ${report.run}: ${report.totalMisses.toLocaleString('en-US')} misses over ${report.accesses.toLocaleString('en-US')} accesses`)
  io.out(`${'rank'.padStart(4)}  ${'data structure'.padEnd(28)} ${'kind'.padEnd(7)} ${'misses'.padStart(12)} ${'share'.padStart(7)}   ${'exact'.padStart(7)} ${'rank'.padStart(4)}`)
  for (const o of result.objects.slice(0, 30)) {
    const e = exactRank.get(o.name)
    io.out(`${String(o.rank).padStart(4)}  ${o.name.slice(0, 28).padEnd(28)} ${o.kind.padEnd(7)} ${Math.round(o.misses).toLocaleString('en-US').padStart(12)} ${(o.fraction * 100).toFixed(1).padStart(6)}%   ${e ? (e.fraction * 100).toFixed(1).padStart(6) + '%' : '      -'} ${e ? String(e.rank).padStart(4) : '   -'}`)
  }
  const c = result.cost
  const cost = [c.samples !== undefined ? `${c.samples.toLocaleString('en-US')} samples` : null, c.period !== undefined ? `1 in ${c.period}` : null, c.interrupts !== undefined ? `${c.interrupts} interrupts` : null, c.converged === false ? 'not converged' : null]
    .filter(Boolean)
    .join(', ')
  if (result.kind !== 'exact') io.out(`rank error: Spearman's rho over exact's top 10 = ${result.rho === null ? 'n/a' : result.rho.toFixed(3)}; cost: ${cost || 'none'}`)
  if (result.coverage) io.out(`coverage: ${result.coverage}`)
  for (const n of result.notes) io.out(`note: ${n}`)
  const absent = Object.entries(result.absent ?? {}).slice(0, 10)
  for (const [name, why] of absent) io.out(`not listed: ${name}: ${why}`)
  if (result.kind.startsWith('approx') && !report.perf.supported) io.out(`hardware samples (perf): not supported on this machine: ${report.perf.reason}`)
  return 0
}

/**
 * `stride top --launch PROG ARGS... [--out S.stride] [--cache ...]`, or `stride top S.stride`:
 * what is hot. A whole-program trace with the host's caches (or the --cache levels), then the
 * program's functions ranked by first-level misses (self costs; shared/hot-functions.ts), and
 * the `stride trace --functions` command that zooms into the hottest.
 */
import { mkdirSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { StrideError } from '../../shared/errors'
import { rankHotFunctions, type HotFunctions } from '../../shared/hot-functions'
import { groupDigits } from '../../shared/counts'
import { sessionsDir } from '../paths'
import { cacheFlags } from '../simulate/host-caches'
import { buildReport } from '../store/runs'
import { SessionStatics } from '../store/session-statics'
import { openSessionDb, readRuns, readSessionInfo } from '../store/session-reader'
import { flag, flags, has, markProgramArgs, parseArgs, positiveInt, TOP_FLAGS } from './args'
import type { Io } from './io'
import { describeConfig } from './report-output'

/** Rows shown without --all / --count. */
const DEFAULT_COUNT = 20

export async function topCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(markProgramArgs(argv, TOP_FLAGS), TOP_FLAGS, 'top')
  const launch = flag(args, 'launch')
  const count = has(args, 'all') ? Infinity : flag(args, 'count') ? positiveInt(flag(args, 'count')!, '--count', 'top') : DEFAULT_COUNT
  let session: string
  if (launch) {
    if (args.positional.length > 0)
      throw new StrideError(`stride top: unexpected "${args.positional[0]}"; the program's arguments follow it (stride top --launch ./prog arg1 arg2), or give a session alone (stride top s.stride).`)
    if (has(args, 'run')) throw new StrideError('stride top: --run picks a run of an existing session (stride top s.stride --run 2); --launch records a new one.')
    session = await traceWholeProgram(args, launch, io)
  } else {
    if (args.positional.length !== 1)
      throw new StrideError('stride top: give the program to run (stride top --launch ./prog ARGS...) or one whole-program session (stride top s.stride).')
    for (const f of ['out', 'force', 'no-heap', 'max-events', 'seconds', 'cache', 'tlb', 'cachegrind-compatible'])
      if (has(args, f)) throw new StrideError(`stride top: --${f} goes with --launch; a session's run is ranked as it was simulated (stride simulate S --cache ... stores another).`)
    session = args.positional[0]!
  }
  const run = flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'top') : null
  const db = openSessionDb(session, { readonly: true })
  let ranked: HotFunctions
  let info
  let config
  try {
    info = readSessionInfo(db, session)
    if (info.functions.length > 0)
      throw new StrideError(
        `stride top: ${session} was traced with --functions ${info.functions.join(',')}, so it holds only their accesses; rank the whole program with stride top --launch ${info.program}${info.args.length ? ' ARGS...' : ''}.`
      )
    if (readRuns(db).length === 0) throw new StrideError(`stride top: ${session} holds no simulated run; simulate it first (stride simulate ${session}: the host's caches), then stride top ${session}.`)
    const report = buildReport(db, run, new SessionStatics({ streams: false, keyed: false }))
    config = report.config
    ranked = rankHotFunctions(report)
  } finally {
    db.close()
  }
  const hottest = ranked.functions.find((f) => f.traceName !== null && f.misses[ranked.level]! > 0) ?? null
  const zoom = hottest ? zoomCommand(info.program, info.args, hottest.traceName!, cacheFlags(config)) : null
  if (has(args, 'json')) {
    io.out(JSON.stringify({ session: resolve(session), program: info.program, args: info.args, ...ranked, config, zoom }, null, 2))
    return 0
  }
  printTop(ranked, { session: resolve(session), program: info.program, config: describeConfig({ config }), count, zoom, hottest: hottest?.traceName ?? null }, io)
  return 0
}

/** The whole-program trace `stride trace` records, with the host's caches unless --cache; returns the session written. */
async function traceWholeProgram(args: ReturnType<typeof parseArgs>, launch: string, io: Io): Promise<string> {
  let cache = flags(args, 'cache').flatMap((c) => ['--cache', c])
  if (cache.length === 0) {
    if (has(args, 'tlb') || has(args, 'cachegrind-compatible')) throw new StrideError('stride top: --tlb and --cachegrind-compatible go with --cache levels, e.g. --cache D1:32K:8:64.')
    const host = (await import('../services/host-hierarchy')).hostHierarchy()
    cache = cacheFlags(host.config).split(' ')
    io.err(`stride top: no --cache, so the host's caches. ${host.note}`)
  }
  let out = flag(args, 'out')
  if (!out) {
    mkdirSync(sessionsDir(), { recursive: true })
    out = resolve(sessionsDir(), `${basename(launch)}-top-${new Date().toISOString().replace(/[:.]/g, '-')}.stride`)
  }
  const traceArgs = [
    '--out', out,
    ...(has(args, 'force') ? ['--force'] : []),
    ...(has(args, 'no-heap') ? ['--no-heap'] : []),
    ...(flag(args, 'max-events') ? ['--max-events', flag(args, 'max-events')!] : []),
    ...(flag(args, 'seconds') ? ['--seconds', flag(args, 'seconds')!] : []),
    ...cache,
    ...flags(args, 'tlb').flatMap((t) => ['--tlb', t]),
    ...(has(args, 'cachegrind-compatible') ? ['--cachegrind-compatible'] : []),
    '--launch', launch,
    '--', ...args.rest
  ]
  let written = resolve(out)
  // The trace's summary line goes to stderr, and its table by line nowhere: this command's
  // result is the ranking.
  let first = true
  const traceIo: Io = {
    out: (line) => {
      if (first) io.err(`stride top: ${line}`)
      first = false
    },
    err: (line) => io.err(line),
    progress: (line) => io.progress(line)
  }
  const { traceCommand } = await import('./trace-command')
  const status = await traceCommand(traceArgs, traceIo, (session) => (written = session))
  if (status !== 0) throw new StrideError(`stride top: the trace ended with status ${status}; nothing to rank.`)
  return written
}

/** A word as the shell reads it back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/** `stride trace --functions F --cache ... --out PROG-F.stride --launch PROG ARGS...`. */
export function zoomCommand(program: string, args: string[], fn: string, cache: string): string {
  const out = `${basename(program)}-${fn.replace(/[^\w.-]+/g, '_')}.stride`
  return ['stride', 'trace', '--functions', shellWord(fn), cache, '--out', shellWord(out), '--launch', shellWord(program), ...args.map(shellWord)].join(' ')
}

interface TopContext {
  session: string
  program: string
  config: string
  count: number
  zoom: string | null
  hottest: string | null
}

function percent(share: number): string {
  return `${(100 * share).toFixed(share >= 0.001 || share === 0 ? 1 : 2)}%`
}

export function printTop(ranked: HotFunctions, c: TopContext, io: Io): void {
  const names = Object.keys(ranked.functions[0]?.misses ?? { [ranked.level]: 0 })
  io.out(`${c.program}, whole program: run ${ranked.run} of ${c.session}`)
  io.out(`  ${c.config}`)
  io.out(`  ${groupDigits(ranked.accesses)} ${ranked.level} accesses, ${groupDigits(ranked.totalMisses)} ${ranked.level} misses`)
  io.out('')
  const shown = ranked.functions.slice(0, c.count)
  const header = ['rank', 'function (self)', 'reads', 'writes', ...names.map((n) => `${n} misses`), `share of ${ranked.level} misses`]
  const rows = shown.map((f) => [String(f.rank), f.traceName ?? f.function, String(f.reads), String(f.writes), ...names.map((n) => String(f.misses[n] ?? 0)), percent(f.share)])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((cell, i) => (i === 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
  io.out([line(header), ...rows.map(line)].join('\n'))
  const hidden = ranked.functions.length - shown.length
  if (hidden > 0) io.out(`... and ${hidden} more functions (--all lists them).`)
  io.out('')
  io.out(ranked.note)
  if (c.zoom) {
    io.out(`Zoom into ${c.hottest}:`)
    io.out(`  ${c.zoom}`)
  } else io.out(`No function of this run missed in ${ranked.level}: nothing to zoom into.`)
}

/**
 * `stride report SESSION [--run N] --by line|reference|variable|function|loop [--all] [--json]`, and
 * `--against M`: the difference of run N (default: latest) against run M, per line,
 * reference or variable (e.g. a padded run against the unpadded one). `--against OTHER.stride`
 * (latest run) or `OTHER.stride:M` compares with another session of the same program: lines
 * and data structures match by name, so traces with other addresses still compare.
 */
import { StrideError } from '../../shared/errors'
import type { RunReport } from '../../shared/domain'
import type { Db } from '../store/open-db'
import { buildLineReport, buildReport, latestRun } from '../store/runs'
import { SessionStatics } from '../store/session-statics'
import { openSessionDb, runCoverage } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'
import { shortRunsLine } from './info-output'
import { diffJson, printDiff, printLineReport, printReport, reportJson, type ReportBy } from './report-output'

const BYS: ReportBy[] = ['line', 'reference', 'variable', 'function', 'loop']

export async function reportCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { run: { value: true }, by: { value: true }, against: { value: true }, all: {}, json: {} }, 'report')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride report: give one session file, e.g. stride report s.stride --by line.')
  const by = (flag(args, 'by') ?? 'line') as ReportBy
  if (!BYS.includes(by)) throw new StrideError(`stride report: --by must be one of ${BYS.join(', ')}, not "${by}".`)
  const run = flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'report') : null
  const db = openSessionDb(session, { readonly: true })
  // Read once for both runs of a comparison; the CLI's tables and JSON show no stream metrics.
  const statics = new SessionStatics({ streams: false, keyed: false })
  try {
    // A run stored from a prefix of the trace (an older session's) is said to be one, on stderr.
    const shown = run ?? latestRun(db)
    const coverage = shown !== null ? runCoverage(db, shown) : null
    const short = coverage ? shortRunsLine([{ run: shown!, accesses: coverage.accesses }], coverage.events) : null
    if (short) io.err(`stride report: note: ${short}.`)
    const against = flag(args, 'against')
    // The table by line needs the run's totals and lines only, not its references.
    if (by === 'line' && !against && !has(args, 'json')) {
      printLineReport(buildLineReport(db, run, statics), io, { all: has(args, 'all') })
      return 0
    }
    const report = buildReport(db, run, statics)
    if (against) {
      const base = baselineReport(db, against, statics)
      if (by === 'function' || by === 'loop') throw new StrideError(`stride report: --against compares by line, reference or variable; not by ${by}.`)
      if (has(args, 'json')) io.out(JSON.stringify(diffJson(base, report), null, 2))
      else printDiff(base, report, by, io, { all: has(args, 'all') })
      return 0
    }
    if (has(args, 'json')) io.out(JSON.stringify(reportJson(report, by), null, 2))
    else printReport(report, by, io, { all: has(args, 'all') })
  } finally {
    db.close()
  }
  return 0
}

/** `M` (a run of this session), `OTHER.stride` (its latest run) or `OTHER.stride:M`. */
function baselineReport(db: Db, against: string, statics: SessionStatics): RunReport {
  if (/^\d+$/.test(against)) return buildReport(db, positiveInt(against, '--against', 'report'), statics)
  const m = /^(.*?)(?::(\d+))?$/.exec(against)!
  const other = openSessionDb(m[1]!, { readonly: true })
  try {
    return buildReport(other, m[2] ? positiveInt(m[2], '--against', 'report') : null, new SessionStatics({ streams: false, keyed: false }))
  } finally {
    other.close()
  }
}

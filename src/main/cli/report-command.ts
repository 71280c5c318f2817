/** `stride report SESSION [--run N] --by line|reference|variable|function [--json]`. */
import { StrideError } from '../../shared/api'
import { buildReport } from '../store/runs'
import { openSessionDb } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'
import { printReport, reportJson, type ReportBy } from './report-output'

const BYS: ReportBy[] = ['line', 'reference', 'variable', 'function']

export async function reportCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { run: { value: true }, by: { value: true }, json: {} }, 'report')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride report: give one session file, e.g. stride report s.stride --by line.')
  const by = (flag(args, 'by') ?? 'line') as ReportBy
  if (!BYS.includes(by)) throw new StrideError(`stride report: --by must be one of ${BYS.join(', ')}, not "${by}".`)
  const run = flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'report') : null
  const db = openSessionDb(session, { readonly: true })
  try {
    const report = buildReport(db, run)
    if (has(args, 'json')) io.out(JSON.stringify(reportJson(report, by), null, 2))
    else printReport(report, by, io)
  } finally {
    db.close()
  }
  return 0
}

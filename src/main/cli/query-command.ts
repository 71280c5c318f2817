/**
 * `stride query SESSION QUERY [--run N] [--reduce sum|min|max] [--json]`: a SIGMA slice of a
 * stored run, e.g. stride query s.stride '[{A,B},{sumfunc},{misses}]'.
 */
import { StrideError } from '../../shared/errors'
import type { QuerySlice, SliceReduction } from '../../shared/domain'
import { runSliceQuery } from '../session-analysis/run-slice-query'
import { openSessionDb } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'

const REDUCTIONS: SliceReduction[] = ['sum', 'min', 'max']

const show = (v: number | null, ratio: boolean) => (v === null ? '-' : ratio ? v.toFixed(4) : v.toLocaleString('en-US'))

function printSlice(s: QuerySlice, io: Io): void {
  io.out(`${s.query}  (${s.reduction}, run ${s.run}${s.resimulated ? ', sections re-simulated' : ''})`)
  const header = ['data', 'code', ...s.metrics]
  const rows: string[][] = []
  s.data.forEach((d, i) => s.code.forEach((c, j) => rows.push([d, c, ...s.cells[i]![j]!.map((v, m) => show(v, s.derived[m]!))])))
  rows.push([s.reduction, '', ...s.total.map((v, m) => show(v, s.derived[m]!))])
  const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k]!.length)))
  const line = (r: string[]) => r.map((x, k) => (k < 2 ? x.padEnd(widths[k]!) : x.padStart(widths[k]!))).join('  ')
  io.out(line(header))
  for (const r of rows) io.out(line(r))
}

export async function queryCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { run: { value: true }, reduce: { value: true }, json: {} }, 'query')
  const [session, query] = args.positional
  if (!session || !query || args.positional.length > 2)
    throw new StrideError(`stride query: give a session and a query, e.g. stride query s.stride '[{A,B},{sumfunc},{misses}]'.`)
  const reduction = (flag(args, 'reduce') ?? 'sum') as SliceReduction
  if (!REDUCTIONS.includes(reduction)) throw new StrideError(`stride query: --reduce must be one of ${REDUCTIONS.join(', ')}, not "${reduction}".`)
  const run = flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'query') : null
  const db = openSessionDb(session, { readonly: true })
  try {
    const slice = await runSliceQuery(db, { run, query, reduction }, { onProgress: (events, total) => io.progress(`re-simulating for array sections: ${events}/${total} accesses`) })
    io.progress(null)
    if (has(args, 'json')) io.out(JSON.stringify(slice, null, 2))
    else printSlice(slice, io)
  } finally {
    db.close()
  }
  return 0
}

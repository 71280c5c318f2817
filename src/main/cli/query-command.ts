/**
 * `stride query SESSION QUERY [--run N] [--reduce sum|min|max] [--all] [--json]`: a SIGMA slice
 * of a stored run, e.g. stride query s.stride '[{A,B},{sumfunc},{misses}]'.
 */
import { StrideError } from '../../shared/errors'
import type { SliceReduction } from '../../shared/domain'
import { runSliceQuery } from '../session-analysis/run-slice-query'
import { openSessionDb } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'
import { sliceTable } from './query-output'

const REDUCTIONS: SliceReduction[] = ['sum', 'min', 'max']

export async function queryCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { run: { value: true }, reduce: { value: true }, all: {}, json: {} }, 'query')
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
    else for (const line of sliceTable(slice, has(args, 'all'))) io.out(line)
  } finally {
    db.close()
  }
  return 0
}

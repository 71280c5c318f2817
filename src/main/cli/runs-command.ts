/**
 * `stride runs SESSION [--run N --rename TEXT] [--json]`: the session's runs, one line each
 * with its label (what differs from the run it came from, shared/run-labels.ts); --rename
 * gives run N a label of the user's ("" goes back to the derived one).
 */
import { StrideError } from '../../shared/errors'
import { cleanLabel, MAX_RUN_LABEL } from '../../shared/run-labels'
import { renameRun } from '../store/runs'
import { openSessionDb, readRuns } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'
import { runLine } from './info-output'

export async function runsCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { run: { value: true }, rename: { value: true }, json: {} }, 'runs')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride runs: give one session file, e.g. stride runs s.stride.')
  const rename = flag(args, 'rename')
  const run = flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'runs') : null
  if (rename !== undefined && run === null) throw new StrideError('stride runs: --rename names one run: give it with --run N, e.g. stride runs s.stride --run 2 --rename "stride prefetcher".')
  if (rename !== undefined && rename.length > MAX_RUN_LABEL * 4) throw new StrideError(`stride runs: --rename takes a label of at most ${MAX_RUN_LABEL} characters.`)
  // Opened to write only to rename.
  const db = openSessionDb(session, { readonly: rename === undefined })
  try {
    if (rename !== undefined) renameRun(db, run!, cleanLabel(rename))
    const runs = readRuns(db)
    const shown = run === null ? runs : runs.filter((r) => r.run === run)
    if (run !== null && shown.length === 0) throw new StrideError(`stride runs: run ${run} is not in this session; it has ${runs.length === 0 ? 'none' : `runs ${runs[0]!.run}-${runs.at(-1)!.run}`}.`, 'not-found')
    if (has(args, 'json')) io.out(JSON.stringify({ runs: shown }, null, 2))
    else if (shown.length === 0) io.out('(no runs: simulate one with stride simulate SESSION --cache L1:32K:8:64)')
    else for (const r of shown) io.out(runLine(r))
  } finally {
    db.close()
  }
  return 0
}

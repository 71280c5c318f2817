/** `stride simulate SESSION --cache NAME:SIZE:ASSOC:LINE ...` (CLI.md). */
import { resolve } from 'node:path'
import { hierarchySchema, StrideError } from '../../shared/api'
import type { HierarchyConfig } from '../../shared/domain'
import { parseCacheSpec } from '../../shared/sizes'
import { buildReport } from '../store/runs'
import { openSessionDb } from '../store/session-reader'
import { runSimulateWorker } from '../workers/run-worker'
import { flags, has, parseArgs } from './args'
import { progressLine, type Io } from './io'
import { printReport, reportJson } from './report-output'

export async function simulateCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(
    argv,
    { cache: { value: true, repeat: true }, tlb: { value: true, repeat: true }, pad: { value: true, repeat: true }, 'cachegrind-compatible': {}, json: {} },
    'simulate'
  )
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride simulate: give one session file, e.g. stride simulate s.stride --cache L1:32K:8:64.')
  if (has(args, 'tlb')) throw new StrideError('stride simulate: --tlb is not supported by this build yet (the TLB model comes with the full hierarchy simulator); leave it out.')
  if (has(args, 'pad')) throw new StrideError('stride simulate: --pad is not supported by this build yet (layout filters come with the full hierarchy simulator); leave it out.')
  const specs = flags(args, 'cache')
  if (specs.length === 0) throw new StrideError('stride simulate: give at least one cache level, e.g. --cache L1:32K:8:64 (innermost first).')
  const levels = specs.map((spec) => {
    const parsed = parseCacheSpec(spec)
    if (typeof parsed === 'string') throw new StrideError(`stride simulate: ${parsed}.`)
    return parsed
  })
  const checked = hierarchySchema.safeParse({ levels, cachegrindCompatible: has(args, 'cachegrind-compatible') })
  if (!checked.success) {
    const issue = checked.error.issues[0]!
    const at = issue.path[1]
    throw new StrideError(`stride simulate: --cache ${typeof at === 'number' ? specs[at] : ''}: ${issue.message}.`)
  }
  const config: HierarchyConfig = checked.data
  const path = resolve(session)
  openSessionDb(path, { readonly: true }).close()

  const started = Date.now()
  const handle = runSimulateWorker({ session: path, config }, (p) => io.progress(progressLine(p.phase, p.events, started)))
  const stop = () => handle.stop()
  process.once('SIGINT', stop)
  try {
    const done = await handle.result
    io.progress(null)
    if (done.cancelled) throw new StrideError('stride simulate: cancelled; no run was stored.')
    const db = openSessionDb(path, { readonly: true })
    const report = buildReport(db, done.run)
    db.close()
    if (has(args, 'json')) io.out(JSON.stringify(reportJson(report), null, 2))
    else printReport(report, 'line', io)
    return 0
  } finally {
    process.off('SIGINT', stop)
  }
}

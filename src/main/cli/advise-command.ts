/**
 * `stride advise SESSION [--run N] [--level NAME] [--json]`: the advisor's diagnoses of a run's
 * hot references (METRIC Fig. 8, Mohan Table 1), each with its evidence, the suggestion and,
 * when Stride can try it, the `stride simulate` flags of that what-if.
 */
import { StrideError } from '../../shared/api'
import type { AdviceItem, RunReport } from '../../shared/domain'
import { diagnoseRun } from '../analysis/advice/diagnose'
import { buildReport } from '../store/runs'
import { openSessionDb } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'

export async function adviseCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { run: { value: true }, level: { value: true }, json: {} }, 'advise')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride advise: give one session file, e.g. stride advise s.stride --level L1.')
  const run = flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'advise') : null
  const db = openSessionDb(session, { readonly: true })
  let report: RunReport
  try {
    report = buildReport(db, run)
  } finally {
    db.close()
  }
  const advice = diagnoseRun(report, { level: flag(args, 'level') ?? report.config.levels[0]!.name })
  if (has(args, 'json')) {
    io.out(JSON.stringify(advice, null, 2))
    return 0
  }
  io.out(`run ${advice.run}, ${advice.level}: ${advice.totalMisses.toLocaleString('en-US')} misses, ${advice.examined} hot references examined`)
  if (advice.items.length === 0) io.out('nothing to advise.')
  for (const item of advice.items) {
    io.out('')
    io.out(`${item.title}  [${item.locations.join(', ')}; ${item.misses.toLocaleString('en-US')} misses, ${(100 * item.share).toFixed(1)}%]`)
    for (const e of item.evidence) io.out(`  - ${e}`)
    io.out(`  → ${item.suggestion}`)
    const flags = simulateFlags(item, report)
    if (flags) io.out(`  try: stride simulate ${session} ${flags}`)
  }
  return 0
}

/** The what-if as `stride simulate` flags (the run's own hierarchy with the change). */
function simulateFlags(item: AdviceItem, report: RunReport): string | null {
  const a = item.action
  if (!a) return null
  const levels = a.kind === 'levels' ? a.levels : report.config.levels
  const cache = levels
    .map((l) => {
      const opts = [l.writePolicy === 'write-through' ? 'wt' : null, l.writeAllocate === false ? 'nwa' : null, l.inclusive ? 'incl' : null, l.prefetch === 'next-line' ? 'pf=next' : l.prefetch === 'stride' ? 'pf=stride' : null, l.seed !== undefined ? `seed=${l.seed}` : null].filter(Boolean)
      return `--cache ${l.name}:${l.size}:${l.assoc}:${l.lineSize}:${l.policy}${opts.length > 0 ? `:${opts.join(',')}` : ''}`
    })
    .join(' ')
  const layout = a.kind === 'layout' ? [...(report.config.layout ?? []), ...a.layout] : (report.config.layout ?? [])
  const pads = layout.filter((f) => f.kind === 'external').map((f) => ` --pad ${f.variable}=${f.bytes}`)
  return cache + pads.join('')
}

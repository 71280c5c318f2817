/**
 * `stride advise SESSION [--run N] [--level NAME] [--json]`: the advisor's diagnoses of a run's
 * hot references (METRIC Fig. 8, Mohan Table 1), each with its evidence, the suggestion and,
 * when Stride can try it, the `stride simulate` flags of that what-if.
 */
import { StrideError } from '../../shared/errors'
import type { AdviceAction, HierarchyConfig, RunAdvice } from '../../shared/domain'
import { adviseStoredRun } from '../session-analysis/session-advice'
import { readRuns, openSessionDb } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'

export async function adviseCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { run: { value: true }, level: { value: true }, json: {} }, 'advise')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride advise: give one session file, e.g. stride advise s.stride --level L1.')
  const run = flag(args, 'run') ? positiveInt(flag(args, 'run')!, '--run', 'advise') : null
  const db = openSessionDb(session, { readonly: true })
  let advice: RunAdvice
  let config: HierarchyConfig
  try {
    advice = await adviseStoredRun(db, run, flag(args, 'level') ?? null)
    config = readRuns(db).find((r) => r.run === advice.run)!.config
  } finally {
    db.close()
  }
  if (has(args, 'json')) {
    io.out(JSON.stringify(advice, null, 2))
    return 0
  }
  io.out(`run ${advice.run}, ${advice.level}: ${advice.totalMisses.toLocaleString('en-US')} misses, ${advice.examined} hot references examined, most misses first`)
  if (advice.classesMissing) io.out(`note: ${advice.classesMissing}`)
  if (advice.items.length === 0) io.out('nothing to advise.')
  for (const item of advice.items) {
    io.out('')
    io.out(`${item.title}  [${item.locations.join(', ')}; ${item.misses.toLocaleString('en-US')} misses, ${(100 * item.share).toFixed(1)}%]`)
    for (const e of item.evidence) io.out(`  - ${e}`)
    io.out(`  → ${item.suggestion}`)
    const flags = simulateFlags(item.action, config)
    if (flags) io.out(`  try: stride simulate ${session} ${flags}`)
    const code = simulateFlags(item.codeAction, config)
    if (code) io.out(`  try the code change: stride simulate ${session} ${code}`)
  }
  return 0
}

/** The what-if as `stride simulate` flags (the run's own hierarchy with the change). */
function simulateFlags(a: AdviceAction | undefined, config: HierarchyConfig): string | null {
  if (!a) return null
  if (a.kind === 'cores') return a.command
  const levels = a.kind === 'levels' ? a.levels : config.levels
  const cache = levels
    .map((l) => {
      const opts = [l.writePolicy === 'write-through' ? 'wt' : null, l.writeAllocate === false ? 'nwa' : null, l.inclusive ? 'incl' : null, l.prefetch === 'next-line' ? 'pf=next' : l.prefetch === 'stride' ? 'pf=stride' : null, l.seed !== undefined ? `seed=${l.seed}` : null].filter(Boolean)
      return `--cache ${l.name}:${l.size}:${l.assoc}:${l.lineSize}:${l.policy}${opts.length > 0 ? `:${opts.join(',')}` : ''}`
    })
    .join(' ')
  const tlb = (a.kind === 'tlb' ? a.tlb : (config.tlb ?? [])).map((t) => ` --tlb ${t.name}:${t.entries}:${t.assoc}:${t.pageSize}${t.policy ? `:${t.policy}` : ''}`)
  const layout = a.kind === 'layout' ? [...(config.layout ?? []), ...a.layout] : (config.layout ?? [])
  const pads = layout.map((f) => (f.kind === 'external' ? ` --pad ${f.variable}=${f.bytes}` : ` --pad-dim ${f.variable}=${f.dim}:${f.extent}${f.order === 'column' ? ':col' : ''}`))
  const transforms = [...(config.transforms ?? []), ...(a.kind === 'transform' ? a.transforms : [])].map((t) => ` --transform ${t.kind}:${t.file}:${t.line}${t.kind === 'tile' ? `:${t.tile}` : ''}`)
  return cache + tlb.join('') + pads.join('') + transforms.join('')
}

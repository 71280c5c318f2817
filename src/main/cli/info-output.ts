/**
 * The lines of `stride info` that grow with the session: its runs and its functions' stream
 * statistics. A session of a what-if sweep has hundreds of runs, a whole-program trace hundreds
 * of libc and loader functions of a few accesses each: shown whole, they buried the program's
 * own. `--json` keeps every one.
 */
import type { RunSummary } from '../../shared/domain'
import type { FunctionStreams } from '../store/stream-store'
import { SHOWN_SHARE } from './shown-share'

/** Groups of runs listed at most; earlier ones are counted. */
export const RUN_GROUPS_SHOWN = 12

/** A run's hierarchy in the CLI's spec forms, with its layout filter if any (runs of one sweep differ there). */
function describe({ config }: RunSummary): string {
  const levels = config.levels.map((l) => `${l.name}:${l.size}:${l.assoc}:${l.lineSize}`)
  const tlb = (config.tlb ?? []).map((t) => `${t.name}:${t.entries}:${t.assoc}:${t.pageSize}`)
  const layout = (config.layout ?? []).map((f) => (f.kind === 'external' ? `pad ${f.variable}=${f.bytes}` : `pad-dim ${f.variable}=${f.dim}:${f.extent}`))
  return [...levels, ...tlb, ...layout].join(' ')
}

/**
 * The runs as `1-586: L1:32768:8:64; 587: L1:65536:8:64`: consecutive runs of one configuration
 * as a range, the latest RUN_GROUPS_SHOWN groups, and how many earlier runs are not listed.
 */
export function runsLine(runs: readonly RunSummary[]): string {
  const groups: Array<{ first: number; last: number; config: string; runs: number }> = []
  for (const r of runs) {
    const config = describe(r)
    const group = groups.at(-1)
    if (group && group.config === config && r.run === group.last + 1) {
      group.last = r.run
      group.runs++
    } else groups.push({ first: r.run, last: r.run, config, runs: 1 })
  }
  if (groups.length === 0) return '(none)'
  const shown = groups.slice(-RUN_GROUPS_SHOWN).map((g) => `${g.first === g.last ? g.first : `${g.first}-${g.last}`}: ${g.config}`)
  const earlier = groups.slice(0, -RUN_GROUPS_SHOWN).reduce((n, g) => n + g.runs, 0)
  return (earlier > 0 ? [`${earlier} earlier (--json lists them)`, ...shown] : shown).join('; ')
}

/**
 * The functions whose stream statistics are worth a line: those holding at least SHOWN_SHARE of
 * the session's accesses (`accesses`: per function, the accesses of its points), most first;
 * and how many others there are.
 */
export function shownFunctions(functions: readonly FunctionStreams[], accesses: ReadonlyMap<string, number>): { shown: FunctionStreams[]; hidden: number } {
  let total = 0
  for (const n of accesses.values()) total += n
  const of = (f: FunctionStreams) => accesses.get(f.function) ?? 0
  const shown = functions.filter((f) => of(f) > 0 && of(f) >= SHOWN_SHARE * total).sort((a, b) => of(b) - of(a) || (a.function < b.function ? -1 : a.function > b.function ? 1 : 0))
  return { shown, hidden: functions.length - shown.length }
}

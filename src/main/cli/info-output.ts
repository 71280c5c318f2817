/**
 * The lines of `stride info` that grow with the session: its runs and its functions' stream
 * statistics. A session of a what-if sweep has hundreds of runs, a whole-program trace hundreds
 * of libc and loader functions of a few accesses each: shown whole, they buried the program's
 * own. `--json` keeps every one.
 */
import type { RunSummary } from '../../shared/domain'
import { cacheContextText } from '../../shared/cache-context'
import { groupDigits } from '../../shared/counts'
import type { FunctionStreams } from '../store/stream-store'
import { SHOWN_SHARE } from './shown-share'

/** Runs listed at most; earlier ones are counted (`stride runs` lists them all). */
export const RUNS_SHOWN = 12

/** A run's line: its number and its label (shared/run-labels.ts). */
export function runLine(r: RunSummary): string {
  return `run ${r.run}  ${r.label}${r.cacheContext ? ` (${cacheContextText(r.cacheContext)})` : ''}`
}

/**
 * The runs, one line each with its label (`run 2  + stride prefetcher on L1`): the latest
 * RUNS_SHOWN, after a line counting the earlier ones.
 */
export function runLines(runs: readonly RunSummary[]): string[] {
  if (runs.length === 0) return ['(none)']
  const earlier = runs.length - RUNS_SHOWN
  const shown = runs.slice(-RUNS_SHOWN).map(runLine)
  return earlier > 0 ? [`${earlier} earlier (stride runs lists them)`, ...shown] : shown
}

/**
 * One line when runs cover fewer accesses than the session holds (stored from a prefix of a
 * recording that grew after, before the one-writer locks): null when every run covers it all.
 */
export function shortRunsLine(runs: ReadonlyArray<Pick<RunSummary, 'run' | 'accesses'>>, events: number): string | null {
  const short = runs.filter((r) => r.accesses < events)
  if (short.length === 0) return null
  const whole = `of the session's ${groupDigits(events)} accesses: simulate again for the whole trace`
  if (short.length === 1) return `run ${short[0]!.run} covers ${groupDigits(short[0]!.accesses)} ${whole}`
  const listed = short.slice(0, 5).map((r) => r.run).join(', ')
  return `runs ${listed}${short.length > 5 ? ` and ${short.length - 5} more` : ''} cover fewer ${whole}`
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

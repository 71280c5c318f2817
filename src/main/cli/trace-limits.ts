/** Limits of `stride trace` options that both backends share. */
import { StrideError } from '../../shared/errors'

/** Longest --seconds: Node's timers overflow past 2^31-1 ms (about 24.8 days). */
export const MAX_TRACE_SECONDS = 24 * 86400

export function traceSeconds(text: string): number {
  const seconds = Number(text)
  if (!(seconds > 0) || seconds > MAX_TRACE_SECONDS)
    throw new StrideError(`stride trace: --seconds "${text}" must be a number of seconds from 0 to ${MAX_TRACE_SECONDS} (24 days).`)
  return seconds
}

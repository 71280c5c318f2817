/**
 * The Data structures tab's shared-lines table (issue 50), prepared from getSharedLines: one
 * row per line, most estimated coherence misses first, with each thread's fields and counts.
 */
import type { SharedLines } from '../../shared/domain'

export interface SharedLineRow {
  address: string
  variables: string
  verdict: 'false sharing' | 'true sharing'
  /** e.g. ["2: counters[0] (w 20,000)", ...]: per thread, its fields and reads/writes. */
  threads: Array<{ thread: number; fields: string; reads: number; writes: number; trueSharing: boolean }>
  interleavings: number
  recordedTotal: number
  recordedFalse: number
  estimateTotal: number
  estimateFalse: number
}

export function computeSharedLineRows(s: SharedLines): SharedLineRow[] {
  return s.lines.map((l) => ({
    address: l.address,
    variables: l.variables.length > 0 ? l.variables.join(', ') : 'unknown',
    verdict: l.verdict === 'false-sharing' ? 'false sharing' : 'true sharing',
    threads: l.threads.map((t) => ({
      thread: t.thread,
      fields: [...new Set(t.footprints.map((f) => f.field ?? `+${f.offset}`))].join(' '),
      reads: t.reads,
      writes: t.writes,
      trueSharing: t.footprints.some((f) => f.trueSharing)
    })),
    interleavings: l.interleavings,
    recordedTotal: l.recorded.trueSharing + l.recorded.falseSharing,
    recordedFalse: l.recorded.falseSharing,
    estimateTotal: l.fineEstimate.trueSharing + l.fineEstimate.falseSharing,
    estimateFalse: l.fineEstimate.falseSharing
  }))
}

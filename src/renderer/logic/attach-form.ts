/**
 * The attach dialog's form, parsed into the API's input (pure). Sampling modes are Mohan
 * et al. section 4's; messages say what to type.
 */
import type { ProcessEntry } from '../../shared/domain'

export type SamplingKind = 'complete' | 'max-samples' | 'periodic' | 'convergence'

export interface SamplingDraft {
  kind: SamplingKind
  samples: string
  periodMs: string
  intervalMs: string
  threshold: string
}

export const DEFAULT_SAMPLING: SamplingDraft = { kind: 'complete', samples: '10', periodMs: '100', intervalMs: '900', threshold: '0.05' }

export type Sampling =
  | { kind: 'complete' }
  | { kind: 'max-samples'; samples: number }
  | { kind: 'periodic'; periodMs: number; intervalMs: number }
  | { kind: 'convergence'; threshold: number; minSamples: number }

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string }

const whole = (t: string) => (/^\d+$/.test(t.trim()) ? Number(t.trim()) : NaN)

export function parseSampling(d: SamplingDraft): Parsed<Sampling> {
  switch (d.kind) {
    case 'complete':
      return { ok: true, value: { kind: 'complete' } }
    case 'max-samples': {
      const n = whole(d.samples)
      return n > 0 && n <= 1e9 ? { ok: true, value: { kind: 'max-samples', samples: n } } : { ok: false, error: 'Max samples must be a positive whole number of calls.' }
    }
    case 'periodic': {
      const p = whole(d.periodMs)
      const i = whole(d.intervalMs)
      if (!(p >= 1 && p <= 3_600_000) || !(i >= 1 && i <= 3_600_000)) return { ok: false, error: 'Period and interval must be whole milliseconds from 1 to 3600000.' }
      return { ok: true, value: { kind: 'periodic', periodMs: p, intervalMs: i } }
    }
    case 'convergence': {
      const t = Number(d.threshold.trim())
      if (!(t > 0 && t <= 10)) return { ok: false, error: 'The convergence threshold must be a fraction above 0 (e.g. 0.05 for 5%).' }
      return { ok: true, value: { kind: 'convergence', threshold: t, minSamples: 2 } }
    }
  }
}

export function parseSeconds(text: string): Parsed<number | null> {
  const t = text.trim()
  if (t === '') return { ok: true, value: null }
  const n = Number(t)
  return n > 0 && n <= 86400 ? { ok: true, value: n } : { ok: false, error: 'Max seconds must be a positive number up to 86400, or empty for no limit.' }
}

/** The picker's filter: every word must appear in the PID, name, user or command line. */
export function filterProcessList(list: ProcessEntry[], filter: string): ProcessEntry[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return list
  return list.filter((p) => {
    const hay = `${p.pid} ${p.name} ${p.user} ${p.command}`.toLowerCase()
    return words.every((w) => hay.includes(w))
  })
}

/**
 * The process list's keyboard: the row an arrow, Page or Home/End key moves to from
 * `current` (Stride itself, which cannot be traced, is passed over); null when the list
 * has no row to go to. `page` is how many rows one Page key moves.
 */
export function stepProcess(rows: ProcessEntry[], current: number | null, key: string, page = 10): number | null {
  const usable = rows.filter((p) => !p.self)
  if (usable.length === 0) return null
  const at = usable.findIndex((p) => p.pid === current)
  const last = usable.length - 1
  const to = (i: number) => usable[Math.max(0, Math.min(last, i))]!.pid
  switch (key) {
    case 'ArrowDown':
      return at < 0 ? to(0) : to(at + 1)
    case 'ArrowUp':
      return at < 0 ? to(last) : to(at - 1)
    case 'PageDown':
      return to((at < 0 ? -1 : at) + page)
    case 'PageUp':
      return to((at < 0 ? last + 1 : at) - page)
    case 'Home':
      return to(0)
    case 'End':
      return to(last)
    default:
      return current
  }
}

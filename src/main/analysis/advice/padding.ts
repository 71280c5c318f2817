/**
 * The external padding that puts conflicting arrays in different cache sets (METRIC 10.3.2
 * pads A, B and C by 128 doubles = 1 KiB each). A cache of S bytes and associativity W maps
 * an address to its set by (address mod S/W); arrays whose hot elements share that offset
 * fight for the same W ways. We keep the lowest-addressed array where it is and move the k-th
 * one so its offset is the first's plus k x pad, pad = 1 KiB (rounded to whole lines) unless
 * the cache is too small for that. SIGMA's external filter moves a variable *and everything
 * after it*, so the filters are the differences between consecutive shifts.
 */
import type { CacheLevelConfig, LayoutFilter, VariableInfo } from '../../../shared/domain'

/** METRIC's choice: 128 doubles. */
export const PREFERRED_PAD_BYTES = 1024

export interface SetPadding {
  /** Filters to add to the run's layout, in address order. */
  filters: LayoutFilter[]
  /** Spacing between consecutive arrays' set offsets. */
  spacing: number
  /** Variables in address order (the first one does not move). */
  order: string[]
}

export type PaddingRefusal = { reason: string }

export function computeSetPadding(variables: VariableInfo[], level: CacheLevelConfig): SetPadding | PaddingRefusal {
  if (variables.length < 2) return { reason: 'the cycle touches a single data structure, so padding between arrays cannot separate it' }
  const notPlaced = variables.filter((v) => v.kind !== 'global' || v.start === null)
  if (notPlaced.length > 0)
    return {
      reason: `${notPlaced.map((v) => v.name).join(', ')} ${notPlaced.length > 1 ? 'are not globals' : 'is not a global'} with a known address, and layout filters only move globals`
    }
  const waySize = level.size / level.assoc
  const n = variables.length
  let spacing = Math.ceil(PREFERRED_PAD_BYTES / level.lineSize) * level.lineSize
  if ((n - 1) * spacing >= waySize) spacing = Math.floor(waySize / n / level.lineSize) * level.lineSize
  if (spacing < level.lineSize) return { reason: `${level.name} has only ${waySize / level.lineSize} sets, too few to give ${n} arrays a set of their own` }

  const placed = variables.map((v) => ({ name: v.name, start: BigInt(v.start!) })).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
  const way = BigInt(waySize)
  const offset = (a: bigint) => Number(((a % way) + way) % way)
  const base = offset(placed[0]!.start)
  const filters: LayoutFilter[] = []
  let shift = 0
  for (let k = 1; k < n; k++) {
    const target = (base + k * spacing) % waySize
    const now = (offset(placed[k]!.start) + shift) % waySize
    const pad = (target - now + waySize) % waySize
    if (pad > 0) filters.push({ kind: 'external', variable: placed[k]!.name, bytes: pad })
    shift += pad
  }
  return { filters, spacing, order: placed.map((p) => p.name) }
}

export function isRefusal(p: SetPadding | PaddingRefusal): p is PaddingRefusal {
  return 'reason' in p
}

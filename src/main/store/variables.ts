/** The session's data structures (schema v2/v3 `variables`, v15 `dims_from`), in the API's shape. */
import type { DimsSource, VariableInfo, VariableKind } from '../../shared/domain'
import type { Db } from './open-db'
import { StrideError } from '../../shared/errors'
import { allRows } from './rows'

const VARIABLE_ROW = {
  name: 'text',
  kind: 'text',
  start: 'number?',
  size: 'number?',
  type: 'text?',
  element_size: 'number?',
  dims: 'text?',
  dims_from: 'text?',
  alloc_site: 'text?',
  reads: 'number',
  writes: 'number'
} as const
/** The kinds a data structure has (the table's CHECK). */
export const VARIABLE_KINDS: readonly unknown[] = ['global', 'stack', 'heap', 'unknown'] satisfies VariableKind[]

export function readVariables(db: Db): VariableInfo[] {
  const rows = allRows(db.prepare('SELECT name, kind, start, size, type, element_size, dims, dims_from, alloc_site, reads, writes FROM variables ORDER BY id'), VARIABLE_ROW)
  return rows.map((r) => {
    const dims = parseDims(r.dims)
    return {
      name: r.name,
      kind: (VARIABLE_KINDS.includes(r.kind) ? r.kind : 'unknown') as VariableKind,
      start: r.start === null ? null : '0x' + r.start.toString(16),
      size: r.size,
      type: r.type || null,
      elementSize: r.element_size,
      dims,
      dimsFrom: dims ? parseDimsFrom(r.dims_from) : null,
      allocSite: r.alloc_site,
      reads: r.reads,
      writes: r.writes
    }
  })
}

/**
 * A stored `variables.dims` (JSON extents, outermost first), or null for none (an empty list or
 * a zero extent: no usable dimensions). Text that is not a JSON array of whole numbers is damage
 * (no digest vouches for the table, so it is checked as the row readers check theirs).
 */
export function parseDims(text: string | null): number[] | null {
  if (!text) return null
  let dims: unknown
  try {
    dims = JSON.parse(text)
  } catch {
    dims = undefined
  }
  if (!Array.isArray(dims) || !dims.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
    const found = text.length > 24 ? `${text.slice(0, 24)}…` : text
    throw new StrideError(`The session file has an unexpected value in variables.dims (expected a JSON array of whole numbers or NULL, found "${found}"); it may be damaged or written by another program.`, 'malformed-session')
  }
  return dims.length > 0 && dims.every((d) => (d as number) > 0) ? (dims as number[]) : null
}

/** A stored `variables.dims_from`; null (sessions before v15) reads as 'type', the only source then. */
export function parseDimsFrom(text: string | null): DimsSource {
  return text === 'strides' ? 'strides' : 'type'
}

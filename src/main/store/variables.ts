/** The session's data structures (schema v2/v3 `variables`), in the API's shape. */
import type { VariableInfo, VariableKind } from '../../shared/domain'
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
  alloc_site: 'text?',
  reads: 'number',
  writes: 'number'
} as const
const VARIABLE_KINDS: readonly string[] = ['global', 'stack', 'heap', 'unknown']

export function readVariables(db: Db): VariableInfo[] {
  const rows = allRows(db.prepare('SELECT name, kind, start, size, type, element_size, dims, alloc_site, reads, writes FROM variables ORDER BY id'), VARIABLE_ROW)
  return rows.map((r) => ({
    name: r.name,
    kind: (VARIABLE_KINDS.includes(r.kind) ? r.kind : 'unknown') as VariableKind,
    start: r.start === null ? null : '0x' + r.start.toString(16),
    size: r.size,
    type: r.type || null,
    elementSize: r.element_size,
    dims: r.dims ? dimsOf(r.dims) : null,
    allocSite: r.alloc_site,
    reads: r.reads,
    writes: r.writes
  }))
}

/** A stored dimension list: a JSON array of whole extents (no digest vouches for the table, so it is checked as the row readers check theirs). */
function dimsOf(text: string): number[] {
  let dims: unknown
  try {
    dims = JSON.parse(text)
  } catch {
    dims = undefined
  }
  if (Array.isArray(dims) && dims.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) return dims as number[]
  const found = text.length > 24 ? `${text.slice(0, 24)}…` : text
  throw new StrideError(`The session file has an unexpected value in variables.dims (expected a JSON array of whole numbers or NULL, found "${found}"); it may be damaged or written by another program.`, 'malformed-session')
}

/** The session's data structures (schema v2/v3 `variables`), in the API's shape. */
import type { VariableInfo, VariableKind } from '../../shared/domain'
import type { Db } from './open-db'

interface VariableRowDb {
  name: string
  kind: VariableKind
  start: number | null
  size: number | null
  type: string | null
  element_size: number | null
  dims: string | null
  alloc_site: string | null
  reads: number
  writes: number
}

export function readVariables(db: Db): VariableInfo[] {
  const rows = db.prepare('SELECT name, kind, start, size, type, element_size, dims, alloc_site, reads, writes FROM variables ORDER BY id').all() as VariableRowDb[]
  return rows.map((r) => ({
    name: r.name,
    kind: r.kind,
    start: r.start === null ? null : '0x' + r.start.toString(16),
    size: r.size,
    type: r.type || null,
    elementSize: r.element_size,
    dims: r.dims ? (JSON.parse(r.dims) as number[]) : null,
    allocSite: r.alloc_site,
    reads: r.reads,
    writes: r.writes
  }))
}

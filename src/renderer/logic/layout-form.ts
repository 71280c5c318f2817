/**
 * The what-if form's padding rows (SIGMA 3.2 layout filters) as the user types them, and
 * their validation against the run's data structures into the contract's LayoutFilter list.
 */
import { layoutFilterSchema } from '../../shared/schemas'
import type { LayoutFilter, VariableInfo } from '../../shared/domain'
import { formatSize, parseSize } from '../../shared/sizes'
import { INFERRED } from '../../shared/dims-text'

export interface LayoutFilterDraft {
  kind: 'external' | 'internal'
  variable: string
  /** external: bytes inserted before the variable (e.g. "1K"). */
  bytes: string
  /** internal: which dimension grows (0 = outermost) and to what extent. */
  dim: string
  extent: string
}

export function layoutDraft(f: LayoutFilter): LayoutFilterDraft {
  return f.kind === 'external'
    ? { kind: 'external', variable: f.variable, bytes: formatSize(f.bytes), dim: '0', extent: '' }
    : { kind: 'internal', variable: f.variable, bytes: '', dim: String(f.dim), extent: String(f.extent) }
}

/**
 * The data structures padding can move, the program's arrays first: arrays with known
 * dimensions, then other typed data, then what only an ELF symbol names (libc's `__abi_tag`,
 * `_IO_stdin_used`: no debug type, or a reserved `_` name); most accessed first within each.
 */
export function paddingCandidates(variables: VariableInfo[]): VariableInfo[] {
  const rank = (v: VariableInfo) => (v.dims && v.dims.length > 0 && !v.name.startsWith('_') ? 0 : v.name.startsWith('_') || !v.type ? 2 : 1)
  return variables
    .filter((v) => v.kind !== 'unknown')
    .map((v, i) => ({ v, i }))
    .sort((a, b) => rank(a.v) - rank(b.v) || b.v.reads + b.v.writes - (a.v.reads + a.v.writes) || a.i - b.i)
    .map((x) => x.v)
}

/** A new row: pad the program's first array, by one kibibyte (METRIC 10.3's fix). */
export function newLayoutDraft(variables: VariableInfo[]): LayoutFilterDraft {
  const first = paddingCandidates(variables)[0]
  return { kind: 'external', variable: first?.name ?? '', bytes: '1K', dim: '0', extent: '' }
}

export type LayoutFormResult = { ok: true; layout: LayoutFilter[] } | { ok: false; error: string }

export function parseLayoutForm(drafts: LayoutFilterDraft[], variables: VariableInfo[]): LayoutFormResult {
  const known = new Map(variables.map((v) => [v.name, v]))
  const out: LayoutFilter[] = []
  for (const [i, d] of drafts.entries()) {
    const where = `Padding ${i + 1}`
    const v = known.get(d.variable)
    if (!v) return { ok: false, error: `${where}: choose a data structure of this run ("${d.variable}" is not one).` }
    if (v.kind === 'unknown') return { ok: false, error: `${where}: memory of unknown owner cannot be moved; choose a named data structure.` }
    let filter: unknown
    if (d.kind === 'external') {
      const bytes = parseSize(d.bytes)
      if (bytes === null || bytes === 0) return { ok: false, error: `${where}: padding "${d.bytes}" is not a size in bytes (e.g. 64 or 1K).` }
      filter = { kind: 'external', variable: v.name, bytes }
    } else {
      if (!v.dims || v.dims.length === 0)
        return { ok: false, error: `${where}: ${v.name} has no known array dimensions; use external padding instead.` }
      const dim = Number(d.dim)
      if (!Number.isInteger(dim) || dim < 0 || dim >= v.dims.length)
        return { ok: false, error: `${where}: ${v.name} has dimensions 0..${v.dims.length - 1} (${v.dims.join(' x ')}${v.dimsFrom === 'strides' ? `, ${INFERRED}` : ''}).` }
      const extent = Number(d.extent)
      if (!Number.isInteger(extent) || extent < v.dims[dim]!)
        return { ok: false, error: `${where}: the new extent of dimension ${dim} must be a whole number ≥ ${v.dims[dim]} (its size now).` }
      filter = { kind: 'internal', variable: v.name, dim, extent, order: 'row' }
    }
    const parsed = layoutFilterSchema.safeParse(filter)
    if (!parsed.success) return { ok: false, error: `${where}: ${parsed.error.issues[0]?.message ?? 'invalid'}.` }
    out.push(parsed.data as LayoutFilter)
  }
  return { ok: true, layout: out }
}

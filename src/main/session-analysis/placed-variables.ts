/**
 * The data structures of a traced run, placed at their runtime addresses, for layout filters.
 * The session's `variables` table is the source (filled by symbolization); a session without
 * it (older, or no debug information) falls back to the program's ELF data symbols placed
 * with the recorded load address: globals only, and without dimensions.
 */
import type { PlacedVariable } from '../simulate/layout-filter'
import { readElf } from '../symbols/elf-reader'
import type { Db } from '../store/open-db'
import { allRows, getRow } from '../store/rows'
import { parseDims, parseDimsFrom } from '../store/variables'

export async function readPlacedVariables(db: Db): Promise<PlacedVariable[]> {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='variables'").get()
  const rows = hasTable
    ? (allRows(db.prepare('SELECT name, kind, start, size, element_size, dims, dims_from, module FROM variables WHERE start IS NOT NULL AND size > 0'), { name: 'text', kind: 'text', start: 'number', size: 'number', element_size: 'number?', dims: 'text?', dims_from: 'text?', module: 'text?' }))
    : []
  if (rows.length > 0) {
    return rows.map((r) => {
      const dims = parseDims(r.dims)
      return {
        name: r.name,
        start: r.start,
        size: r.size,
        // Globals move with their object file; a stack or heap block moves alone.
        group: r.kind === 'global' ? `global:${r.module ?? ''}` : `${r.kind}:${r.name}:${r.start}`,
        dims,
        elementSize: r.element_size,
        dimsFrom: dims ? parseDimsFrom(r.dims_from) : null
      }
    })
  }
  const program = getRow(db.prepare("SELECT value FROM meta WHERE key = 'program'"), { value: 'text' })
  if (!program) return []
  const path = JSON.parse(program.value) as string
  let elf
  try {
    elf = await readElf(path)
  } catch {
    return []
  }
  const module = getRow(db.prepare('SELECT base FROM modules WHERE path = ? ORDER BY id LIMIT 1'), { base: 'number' }, path)
  const offset = elf.relocatable ? (module?.base ?? 0) : 0
  return elf.data.map((d) => ({ name: d.name, start: d.start + offset, size: d.size, group: `global:${path}`, dims: null, elementSize: null }))
}

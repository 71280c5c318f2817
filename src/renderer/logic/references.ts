/** Rows of the access-point table for one level of a run, and their sorting. */
import type { AccessKind, RunReport } from '../../shared/domain'
import type { SortableColumn } from './data-table'
import type { ExportTable } from './export'
import { baseName } from './format'

export interface ReferenceRow {
  id: string
  pc: string
  kind: AccessKind
  file: string | null
  line: number | null
  function: string | null
  variable: string | null
  /** "conflict.c:30", or the pc when the binary has no line information. */
  location: string
  /** What it evaluates in source (METRIC's SourceRef, e.g. `B[j][i]`), or null. */
  sourceExpr: string | null
  disasm: string | null
  reads: number
  writes: number
  hits: number
  misses: number
  ratio: number | null
}

export type ReferenceColumnKey = 'id' | 'location' | 'source' | 'reads' | 'writes' | 'hits' | 'misses' | 'ratio'

/**
 * How the access-point table sorts and filters (`logic/data-table.ts`): ids and source text
 * naturally, locations by file then line then pc (rows without a file last), numbers as numbers
 * (a level that saw no access, ratio null, last). The filter reads id, location (with the full
 * path) and source text.
 */
export const REFERENCE_SORT_COLUMNS: ReadonlyArray<SortableColumn<ReferenceRow> & { key: ReferenceColumnKey }> = [
  { key: 'id', type: 'text', sortValue: (r) => r.id },
  {
    key: 'location',
    type: 'text',
    sortValue: (r) => (r.file !== null ? `${r.file}:${r.line ?? 0}:${r.pc}` : `\uffff${r.pc}`),
    filterText: (r) => (r.file !== null ? `${r.location} ${r.file}` : r.location)
  },
  { key: 'source', type: 'text', sortValue: (r) => r.sourceExpr },
  { key: 'reads', type: 'number', sortValue: (r) => r.reads },
  { key: 'writes', type: 'number', sortValue: (r) => r.writes },
  { key: 'hits', type: 'number', sortValue: (r) => r.hits },
  { key: 'misses', type: 'number', sortValue: (r) => r.misses },
  { key: 'ratio', type: 'number', sortValue: (r) => r.ratio }
]

export function computeReferenceRows(report: RunReport, level: string): ReferenceRow[] {
  return report.references.map((r) => {
    const s = r.levels[level] ?? { hits: 0, misses: 0, readMisses: 0, writeMisses: 0 }
    const total = s.hits + s.misses
    return {
      id: r.id,
      pc: r.pc,
      kind: r.kind,
      file: r.file,
      line: r.line,
      function: r.function,
      variable: r.variable,
      location: r.file !== null && r.line !== null ? `${baseName(r.file)}:${r.line}` : r.pc,
      sourceExpr: r.sourceExpr ?? null,
      disasm: r.disasm ?? null,
      reads: r.reads,
      writes: r.writes,
      hits: s.hits,
      misses: s.misses,
      ratio: total > 0 ? s.misses / total : null
    }
  })
}

/** Source files of a run, most L1-missed first: the first one is what we open by default. */
export function computeSourceFiles(report: RunReport): string[] {
  const first = report.levels[0]?.name
  const score = new Map<string, { misses: number; accesses: number }>()
  for (const l of report.lines) {
    const s = score.get(l.file) ?? { misses: 0, accesses: 0 }
    const lv = first ? l.levels[first] : undefined
    s.misses += lv ? lv.readMisses + lv.writeMisses : 0
    s.accesses += l.reads + l.writes
    score.set(l.file, s)
  }
  for (const r of report.references) if (r.file !== null && !score.has(r.file)) score.set(r.file, { misses: 0, accesses: 0 })
  return [...score].sort((a, b) => b[1].misses - a[1].misses || b[1].accesses - a[1].accesses).map(([f]) => f)
}

/** The table as exported (CSV/JSON): the rows given (the table's, as shown), full paths, raw numbers. */
export function referenceExportTable(rows: ReferenceRow[], level: string): ExportTable {
  return {
    columns: ['reference', 'pc', 'kind', 'file', 'line', 'function', 'variable', 'source', 'reads', 'writes', `${level} hits`, `${level} misses`, `${level} miss ratio`],
    rows: rows.map((r) => [r.id, r.pc, r.kind, r.file, r.line, r.function, r.variable, r.sourceExpr, r.reads, r.writes, r.hits, r.misses, r.ratio])
  }
}

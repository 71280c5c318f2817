/** Rows of the access-point table for one level of a run, and their sorting. */
import type { AccessKind, RunReport } from '../../shared/domain'
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

export type ReferenceSortKey = 'id' | 'location' | 'source' | 'reads' | 'writes' | 'hits' | 'misses' | 'ratio'
export interface ReferenceSort {
  key: ReferenceSortKey
  dir: 'asc' | 'desc'
}

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

function compareLocation(a: ReferenceRow, b: ReferenceRow): number {
  const fa = a.file ?? '\uffff'
  const fb = b.file ?? '\uffff'
  if (fa !== fb) return fa < fb ? -1 : 1
  if ((a.line ?? 0) !== (b.line ?? 0)) return (a.line ?? 0) - (b.line ?? 0)
  return a.pc < b.pc ? -1 : a.pc > b.pc ? 1 : 0
}

/** Stable sort; ties broken by misses then id so the order never flickers between renders. */
export function sortReferenceRows(rows: ReferenceRow[], sort: ReferenceSort): ReferenceRow[] {
  const sign = sort.dir === 'asc' ? 1 : -1
  const primary = (a: ReferenceRow, b: ReferenceRow): number => {
    switch (sort.key) {
      case 'id':
        return a.id.localeCompare(b.id, undefined, { numeric: true })
      case 'location':
        return compareLocation(a, b)
      case 'source':
        return (a.sourceExpr ?? '').localeCompare(b.sourceExpr ?? '')
      case 'ratio':
        return (a.ratio ?? -1) - (b.ratio ?? -1)
      default:
        return a[sort.key] - b[sort.key]
    }
  }
  return [...rows].sort(
    (a, b) => sign * primary(a, b) || b.misses - a.misses || a.id.localeCompare(b.id, undefined, { numeric: true })
  )
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

/** The table as exported (CSV/JSON): every row, full paths, raw numbers. */
export function referenceExportTable(rows: ReferenceRow[], level: string): ExportTable {
  return {
    columns: ['reference', 'pc', 'kind', 'file', 'line', 'function', 'variable', 'source', 'reads', 'writes', `${level} hits`, `${level} misses`, `${level} miss ratio`],
    rows: rows.map((r) => [r.id, r.pc, r.kind, r.file, r.line, r.function, r.variable, r.sourceExpr, r.reads, r.writes, r.hits, r.misses, r.ratio])
  }
}

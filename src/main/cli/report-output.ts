/** The JSON shapes of CLI.md and the plain-text tables of `simulate`/`report`. */
import type { RunReport } from '../../shared/domain'
import { groupFunctions, groupVariables } from '../store/runs'
import type { Io } from './io'

export type ReportBy = 'line' | 'reference' | 'variable' | 'function'

export function reportJson(report: RunReport, by: ReportBy | null = null): unknown {
  const base = { run: report.run, config: report.config, levels: report.levels }
  const references = report.references.map((r) => ({
    id: r.id,
    pc: r.pc,
    kind: r.kind,
    file: r.file,
    line: r.line,
    function: r.function,
    variable: r.variable,
    reads: r.reads,
    writes: r.writes,
    levels: r.levels
  }))
  switch (by) {
    case null:
      return { ...base, lines: report.lines, references }
    case 'line':
      return { ...base, lines: report.lines }
    case 'reference':
      return { ...base, references }
    case 'variable':
      return { ...base, variables: groupVariables(report) }
    case 'function':
      return { ...base, functions: groupFunctions(report) }
  }
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
}

function table(header: string[], rows: string[][], io: Io): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  io.out(pad(header, widths))
  for (const r of rows) io.out(pad(r, widths))
}

const ratio = (misses: number, total: number) => (total > 0 ? (misses / total).toFixed(4) : '-')

export function printReport(report: RunReport, by: ReportBy, io: Io): void {
  const names = report.config.levels.map((l) => l.name)
  io.out(`run ${report.run}: ${report.config.levels.map((l) => `${l.name} ${l.size}B ${l.assoc}-way ${l.lineSize}B lines`).join(', ')}${report.config.cachegrindCompatible ? ' (Cachegrind-compatible)' : ''}`)
  for (const l of report.levels)
    io.out(`  ${l.name}: ${l.reads} reads, ${l.writes} writes, ${l.readMisses} read misses, ${l.writeMisses} write misses, miss ratio ${ratio(l.readMisses + l.writeMisses, l.reads + l.writes)}`)
  io.out('')
  const missCols = names.flatMap((n) => [`${n} rd miss`, `${n} wr miss`])
  type Row = { label: string; reads: number; writes: number; levels: Record<string, { readMisses: number; writeMisses: number }> }
  let rows: Row[]
  let label: string
  switch (by) {
    case 'line':
      label = 'file:line'
      rows = report.lines.map((l) => ({ label: `${l.file}:${l.line}`, ...l }))
      break
    case 'reference':
      label = 'reference'
      rows = report.references.map((r) => ({ label: `${r.id} ${r.file ? `${r.file.split('/').pop()}:${r.line}` : r.pc}`, ...r }))
      break
    case 'variable':
      label = 'variable'
      rows = groupVariables(report).map((v) => ({ label: v.variable, ...v }))
      break
    case 'function':
      label = 'function'
      rows = groupFunctions(report).map((f) => ({ label: f.function, ...f }))
      break
  }
  const misses = (r: Row) => Object.values(r.levels).reduce((s, l) => s + l.readMisses + l.writeMisses, 0)
  rows.sort((a, b) => misses(b) - misses(a) || b.reads + b.writes - (a.reads + a.writes))
  table(
    [label, 'reads', 'writes', ...missCols],
    rows.map((r) => [r.label, String(r.reads), String(r.writes), ...names.flatMap((n) => [String(r.levels[n]?.readMisses ?? 0), String(r.levels[n]?.writeMisses ?? 0)])]),
    io
  )
}

/** The JSON shapes of CLI.md and the plain-text tables of `simulate`/`report`. */
import type { RunReport } from '../../shared/domain'
import { groupFunctions, levelNames, type LineReport } from '../../shared/report-model'
import { groupVariables } from '../../shared/report-model'
import { computeRunDiff } from '../../shared/run-diff'
import { groupLoops } from '../store/loops'
import type { Io } from './io'

export type ReportBy = 'line' | 'reference' | 'variable' | 'function' | 'loop'

export function reportJson(report: RunReport, by: ReportBy | null = null): unknown {
  const base = { run: report.run, config: report.config, levels: report.levels, ...(report.timelines ? { timelines: report.timelines } : {}) }
  const references = report.references.map((r) => ({
    id: r.id,
    pc: r.pc,
    kind: r.kind,
    file: r.file,
    line: r.line,
    function: r.function,
    variable: r.variable,
    ...(r.sourceExpr ? { sourceExpr: r.sourceExpr } : {}),
    ...(r.disasm ? { disasm: r.disasm } : {}),
    reads: r.reads,
    writes: r.writes,
    levels: r.levels,
    ...(r.evictors ? { evictors: r.evictors } : {})
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
    case 'loop':
      return { ...base, loops: groupLoops(report) }
  }
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
}

/** One write for the whole table: a whole-program report has thousands of rows, and a write per row cost more than building them. */
function table(header: string[], rows: string[][], io: Io): void {
  const widths = header.map((h, i) => rows.reduce((w, r) => Math.max(w, r[i]!.length), h.length))
  io.out([header, ...rows].map((r) => pad(r, widths)).join('\n'))
}

const ratio = (misses: number, total: number) => (total > 0 ? (misses / total).toFixed(4) : '-')

type Levels = Record<string, { readMisses: number; writeMisses: number }>
type Row = { label: string; reads: number; writes: number; levels: Levels; misses: number }
// A row takes what the table shows (no spread copy of each line or reference), and its
// misses summed once, not in every comparison of the sort.
const row = (label: string, r: { reads: number; writes: number; levels: Levels }): Row => {
  let misses = 0
  for (const n in r.levels) misses += r.levels[n]!.readMisses + r.levels[n]!.writeMisses
  return { label, reads: r.reads, writes: r.writes, levels: r.levels, misses }
}

/** A run's totals and its table by line: printReport(report, 'line'), from the totals and lines alone. */
export function printLineReport(report: LineReport, io: Io): void {
  printTable(report, 'file:line', report.lines.map((l) => row(`${l.file}:${l.line}`, l)), io)
}

export function printReport(report: RunReport, by: ReportBy, io: Io): void {
  let rows: Row[]
  let label: string
  switch (by) {
    case 'line':
      return printLineReport(report, io)
    case 'reference':
      label = 'reference'
      rows = report.references.map((r) => row(`${r.id} ${r.file ? `${r.file.split('/').pop()}:${r.line}` : r.pc}`, r))
      break
    case 'variable':
      label = 'variable'
      rows = groupVariables(report).map((v) => row(`${v.variable} (${v.kind ?? 'unknown'})${v.apportioned ? ' *' : ''}`, v))
      break
    case 'function':
      label = 'function'
      rows = groupFunctions(report).map((f) => row(f.function, f))
      break
    case 'loop':
      label = 'loop (with the loops nested in it)'
      rows = groupLoops(report).map((l) => row(`${'  '.repeat(l.depth)}${l.name}`, l))
      break
  }
  printTable(report, label, rows, io)
  if (by === 'variable' && rows.some((r) => r.label.endsWith(' *')))
    io.out('* some references touch several data structures: each access counts for the one it touched; their misses are split by the same shares.')
}

/** The run's header and totals, then its rows (by misses, most first) under `label`. */
function printTable(report: LineReport, label: string, rows: Row[], io: Io): void {
  const names = levelNames(report.config)
  io.out(`run ${report.run}: ${describeConfig(report)}`)
  for (const l of report.levels)
    io.out(`  ${l.name}: ${l.reads} reads, ${l.writes} writes, ${l.readMisses} read misses, ${l.writeMisses} write misses, miss ratio ${ratio(l.readMisses + l.writeMisses, l.reads + l.writes)}`)
  io.out('')
  const missCols = names.flatMap((n) => [`${n} rd miss`, `${n} wr miss`])
  rows.sort((a, b) => b.misses - a.misses || b.reads + b.writes - (a.reads + a.writes))
  table(
    [label, 'reads', 'writes', ...missCols],
    rows.map((r) => [r.label, String(r.reads), String(r.writes), ...names.flatMap((n) => [String(r.levels[n]?.readMisses ?? 0), String(r.levels[n]?.writeMisses ?? 0)])]),
    io
  )
}

export function describeConfig(report: Pick<RunReport, 'config'>): string {
  const c = report.config
  const levels = c.levels.map((l) => {
    const opts = [l.policy !== 'lru' ? l.policy : '', l.writePolicy === 'write-through' ? 'write-through' : '', l.writeAllocate === false ? 'no write-allocate' : '', l.inclusive ? 'inclusive' : '', l.prefetch && l.prefetch !== 'none' ? `${l.prefetch} prefetch` : ''].filter(Boolean)
    return `${l.name} ${l.size}B ${l.assoc}-way ${l.lineSize}B lines${opts.length ? ` (${opts.join(', ')})` : ''}`
  })
  const tlb = (c.tlb ?? []).map((t) => `${t.name} ${t.entries} entries ${t.assoc}-way ${t.pageSize}B pages`)
  const layout = (c.layout ?? []).map((f) => (f.kind === 'external' ? `pad ${f.variable} +${f.bytes}B` : `${f.variable} dim ${f.dim} -> ${f.extent} (${f.order})`))
  return [...levels, ...tlb].join(', ') + (c.cachegrindCompatible ? ' (Cachegrind-compatible)' : '') + (layout.length ? `; layout: ${layout.join(', ')}` : '')
}

/** One row per configuration of a sweep: misses and miss ratio per level. */
export function printSweep(reports: LineReport[], io: Io): void {
  const rows = reports.map((r) => [String(r.run), describeConfig(r), ...r.levels.map((l) => `${l.name} ${l.readMisses + l.writeMisses} (${ratio(l.readMisses + l.writeMisses, l.reads + l.writes)})`)])
  const width = Math.max(...rows.map((r) => r.length))
  table(['run', 'configuration', ...Array.from({ length: width - 2 }, (_, i) => `level ${i + 1} misses (ratio)`)], rows.map((r) => [...r, ...new Array<string>(width - r.length).fill('')]), io)
}

type DiffBy = 'variable' | 'line' | 'reference'
const AXIS = { variable: 'variables', line: 'lines', reference: 'references' } as const

/** One row of `--against` output: misses per level before and after (absent: a level the baseline lacks). */
interface CliDiffRow {
  key: string
  levels: Record<string, { before: number; after: number; delta: number }>
}

/** The shared run diff (src/shared/run-diff.ts) at every level, one column group per level. */
export function computeDiff(before: RunReport, after: RunReport, by: DiffBy): CliDiffRow[] {
  const rows = new Map<string, CliDiffRow>()
  for (const level of levelNames(after.config)) {
    for (const r of computeRunDiff(before, after, level)[AXIS[by]]) {
      const row = rows.get(r.key) ?? { key: r.key, levels: {} }
      row.levels[level] = { before: r.baseMisses, after: r.misses, delta: r.delta }
      rows.set(r.key, row)
    }
  }
  const first = (r: CliDiffRow) => Math.abs(Object.values(r.levels)[0]?.delta ?? 0)
  return [...rows.values()].sort((p, q) => first(q) - first(p) || p.key.localeCompare(q.key))
}

export function diffJson(before: RunReport, after: RunReport): unknown {
  return { before: before.run, after: after.run, variables: computeDiff(before, after, 'variable'), lines: computeDiff(before, after, 'line'), references: computeDiff(before, after, 'reference') }
}

export function printDiff(before: RunReport, after: RunReport, by: DiffBy, io: Io): void {
  const names = levelNames(after.config)
  io.out(`misses, run ${after.run} against run ${before.run} (${describeConfig(before)}):`)
  const rows = computeDiff(before, after, by)
  table(
    [by, ...names.flatMap((n) => [`${n} before`, `${n} after`, `${n} change`])],
    rows.map((r) => [r.key, ...names.flatMap((n) => {
      const l = r.levels[n]
      if (!l) return ['-', '-', 'not in the baseline']
      return [String(l.before), String(l.after), `${l.delta > 0 ? '+' : ''}${l.delta}${l.before > 0 ? ` (${((100 * l.delta) / l.before).toFixed(1)}%)` : ''}`]
    })]),
    io
  )
}

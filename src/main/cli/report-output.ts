/** The JSON shapes of CLI.md and the plain-text tables of `simulate`/`report`. */
import type { RunReport } from '../../shared/domain'
import { cacheContextText } from '../../shared/cache-context'
import { groupFunctions, levelNames, type LineReport } from '../../shared/report-model'
import { groupVariables } from '../../shared/report-model'
import { computeRunDiff } from '../../shared/run-diff'
import { groupLoops } from '../store/loops'
import type { Io } from './io'
import { SHOWN_SHARE } from './shown-share'

export type ReportBy = 'line' | 'reference' | 'variable' | 'function' | 'loop'

export function reportJson(report: RunReport, by: ReportBy | null = null): unknown {
  const base = { run: report.run, config: report.config, ...(report.cacheContext ? { cacheContext: report.cacheContext } : {}), levels: report.levels, ...(report.timelines ? { timelines: report.timelines } : {}) }
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

/** The row's cells in their columns: the first left-aligned, the others right-aligned, two spaces apart. */
function pad(cells: readonly string[], widths: readonly number[]): string {
  let line = cells[0]!.padEnd(widths[0]!)
  for (let i = 1; i < cells.length; i++) line += '  ' + cells[i]!.padStart(widths[i]!)
  return line
}

/**
 * One write for the whole table: a whole-program report has thousands of rows, and a write per
 * row cost more than building them. Plain loops: this runs once per command, before the JIT
 * has compiled anything, where each closure call per cell costs (a third of the table's time).
 */
function table(header: string[], rows: string[][], io: Io): void {
  const widths = header.map((h) => h.length)
  for (const r of rows) for (let i = 0; i < r.length; i++) if (r[i]!.length > widths[i]!) widths[i] = r[i]!.length
  const lines = new Array<string>(rows.length + 1)
  lines[0] = pad(header, widths)
  for (let k = 0; k < rows.length; k++) lines[k + 1] = pad(rows[k]!, widths)
  io.out(lines.join('\n'))
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

/**
 * What a text table shows: by default, as cg_annotate does, only the rows holding at least
 * SHOWN_SHARE of the run's total in some column (reads, writes, or a level's read or write
 * misses); a whole-program run has thousands of lines, nearly all of them a few accesses of
 * the loader's start-up. `all`: every row. `more`: how the user lists the rest (said under the
 * table).
 */
export interface TableOptions {
  all?: boolean
  more?: string
}


/** A run's totals and its table by line: printReport(report, 'line'), from the totals and lines alone. */
export function printLineReport(report: LineReport, io: Io, options: TableOptions = {}): void {
  printTable(report, 'file:line', 'lines', report.lines.map((l) => row(`${l.file}:${l.line}`, l)), io, options)
}

export function printReport(report: RunReport, by: ReportBy, io: Io, options: TableOptions = {}): void {
  let rows: Row[]
  let label: string
  let noun: string
  switch (by) {
    case 'line':
      return printLineReport(report, io, options)
    case 'reference':
      label = noun = 'reference'
      rows = report.references.map((r) => row(`${r.id} ${r.file ? `${r.file.split('/').pop()}:${r.line}` : r.pc}`, r))
      break
    case 'variable':
      label = 'variable'
      noun = 'data structure'
      rows = groupVariables(report).map((v) => row(`${v.variable} (${v.kind ?? 'unknown'})${v.apportioned ? ' *' : ''}`, v))
      break
    case 'function':
      label = noun = 'function'
      rows = groupFunctions(report).map((f) => row(f.function, f))
      break
    case 'loop':
      label = 'loop (with the loops nested in it)'
      noun = 'loop'
      rows = groupLoops(report).map((l) => row(`${'  '.repeat(l.depth)}${l.name}`, l))
      break
  }
  const shown = printTable(report, label, `${noun}s`, rows, io, options)
  if (by === 'variable' && shown.some((r) => r.label.endsWith(' *')))
    io.out('* some references touch several data structures: each access counts for the one it touched; their misses are split by the same shares.')
}

/**
 * The run's header and totals, then its rows (by misses, most first) under `label`, those
 * TableOptions keeps; returns them. `nouns`: what a row is, for the line under the table.
 */
function printTable(report: LineReport, label: string, nouns: string, rows: Row[], io: Io, options: TableOptions): Row[] {
  const names = levelNames(report.config)
  io.out(`run ${report.run}: ${describeConfig(report)}${report.cacheContext ? ` (${cacheContextText(report.cacheContext)})` : ''}`)
  for (const l of report.levels)
    io.out(`  ${l.name}: ${l.reads} reads, ${l.writes} writes, ${l.readMisses} read misses, ${l.writeMisses} write misses, miss ratio ${ratio(l.readMisses + l.writeMisses, l.reads + l.writes)}`)
  io.out('')
  const missCols = names.flatMap((n) => [`${n} rd miss`, `${n} wr miss`])
  rows.sort((a, b) => b.misses - a.misses || b.reads + b.writes - (a.reads + a.writes))
  // Each row's columns as numbers, then as the table's cells for the rows kept. The shares are
  // of the run's totals (the first level's accesses, each level's misses), not of the rows'
  // sums: a loop's row holds the loops nested in it, and some accesses have no source line.
  const width = 2 + 2 * names.length
  const values = new Float64Array(rows.length * width)
  const totals = new Float64Array(width)
  const levelTotals = new Map(report.levels.map((l) => [l.name, l]))
  totals[0] = report.levels[0]?.reads ?? 0
  totals[1] = report.levels[0]?.writes ?? 0
  names.forEach((n, i) => {
    totals[2 + 2 * i] = levelTotals.get(n)?.readMisses ?? 0
    totals[3 + 2 * i] = levelTotals.get(n)?.writeMisses ?? 0
  })
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!
    const at = k * width
    values[at] = r.reads
    values[at + 1] = r.writes
    for (let n = 0; n < names.length; n++) {
      const l = r.levels[names[n]!]
      values[at + 2 + 2 * n] = l?.readMisses ?? 0
      values[at + 3 + 2 * n] = l?.writeMisses ?? 0
    }
  }
  const shown: Row[] = []
  const cells: string[][] = []
  for (let k = 0; k < rows.length; k++) {
    const at = k * width
    let keep = options.all === true
    for (let c = 0; c < width && !keep; c++) keep = values[at + c]! > 0 && values[at + c]! >= SHOWN_SHARE * totals[c]!
    if (!keep) continue
    const cell = [rows[k]!.label]
    for (let c = 0; c < width; c++) cell.push(String(values[at + c]))
    shown.push(rows[k]!)
    cells.push(cell)
  }
  table([label, 'reads', 'writes', ...missCols], cells, io)
  const hidden = rows.length - shown.length
  if (hidden > 0) io.out(`... and ${hidden} more ${nouns}, each under ${SHOWN_SHARE * 100}% of every column (${options.more ?? '--all lists them'}).`)
  return shown
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

/**
 * The difference of two runs by line, reference or data structure, biggest change first. By
 * default only the rows whose misses change at some level by SHOWN_SHARE or more of that
 * level's misses (the larger of the two runs' totals); `all`: every row.
 */
export function printDiff(before: RunReport, after: RunReport, by: DiffBy, io: Io, options: TableOptions = {}): void {
  const names = levelNames(after.config)
  io.out(`misses, run ${after.run} against run ${before.run} (${describeConfig(before)}):`)
  const rows = computeDiff(before, after, by)
  const missesOf = (r: RunReport, n: string) => {
    const l = r.levels.find((level) => level.name === n)
    return l ? l.readMisses + l.writeMisses : 0
  }
  const floor = names.map((n) => SHOWN_SHARE * Math.max(missesOf(before, n), missesOf(after, n)))
  const shown = rows.filter(
    (r) =>
      options.all === true ||
      names.some((n, i) => {
        const l = r.levels[n]
        // A level the baseline lacks: the row's misses there are all change.
        const change = l ? Math.abs(l.delta) : 0
        return change > 0 && change >= floor[i]!
      })
  )
  table(
    [by, ...names.flatMap((n) => [`${n} before`, `${n} after`, `${n} change`])],
    shown.map((r) => [r.key, ...names.flatMap((n) => {
      const l = r.levels[n]
      if (!l) return ['-', '-', 'not in the baseline']
      return [String(l.before), String(l.after), `${l.delta > 0 ? '+' : ''}${l.delta}${l.before > 0 ? ` (${((100 * l.delta) / l.before).toFixed(1)}%)` : ''}`]
    })]),
    io
  )
  const hidden = rows.length - shown.length
  const nouns = { line: 'lines', reference: 'references', variable: 'data structures' } as const
  if (hidden > 0) io.out(`... and ${hidden} more ${nouns[by]}, each changing by under ${SHOWN_SHARE * 100}% of every level's misses (${options.more ?? '--all lists them'}).`)
}

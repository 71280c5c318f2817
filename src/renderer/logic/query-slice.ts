/**
 * The Query view's derivations (pure): the axes a user picks from (data structures, a code
 * tree files -> functions -> loops -> lines, metrics per level), the two-way link between
 * the checked items and SIGMA's notation text, and a slice's table and chart series.
 */
import type { QuerySlice, RunReport } from '../../shared/domain'
import { METRIC_NAMES, parseSliceQuery, printCodeItem, printDataItem, printMetricItem, SliceParseError } from '../../shared/slice-notation'
import type { ExportTable } from './export'

export type SliceAxis = 'data' | 'code' | 'metrics'

/** Checked items per axis, each in its printed notation (`A`, `c[*,1]`, `sumfunc`, `L2.misses`). */
export interface SliceSelection {
  data: string[]
  code: string[]
  metrics: string[]
}

export interface AxisOption {
  item: string
  label: string
  detail?: string
}

export interface CodeNode extends AxisOption {
  kind: 'file' | 'function' | 'loop' | 'line'
  children: CodeNode[]
}

export interface SliceAxes {
  data: AxisOption[]
  code: CodeNode[]
  metrics: AxisOption[]
}

const base = (path: string) => path.slice(path.lastIndexOf('/') + 1)

export function computeSliceAxes(report: RunReport): SliceAxes {
  // Data structures, busiest first, with their type.
  const accesses = new Map<string, number>()
  for (const r of report.references) accesses.set(r.variable ?? 'unknown', (accesses.get(r.variable ?? 'unknown') ?? 0) + r.reads + r.writes)
  const types = new Map((report.variables ?? []).map((v) => [v.name, v.type]))
  const data: AxisOption[] = [
    { item: '*', label: 'all (one row each)' },
    ...[...accesses]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([name, n]) => ({ item: printDataItem({ name, section: null }), label: name, detail: `${types.get(name) ?? ''}${types.get(name) ? ' · ' : ''}${n.toLocaleString('en-US')} accesses` }))
  ]
  // Code: files -> functions -> loops (by header line) and lines.
  const files = new Map<string, Map<string, Set<number>>>()
  for (const l of report.lines) {
    const fns = files.get(l.file) ?? files.set(l.file, new Map()).get(l.file)!
    const fn = l.function ?? 'unknown'
    ;(fns.get(fn) ?? fns.set(fn, new Set()).get(fn)!).add(l.line)
  }
  const code: CodeNode[] = [{ item: '*', label: 'all functions (one column each)', kind: 'file', children: [] }]
  for (const [file, fns] of [...files].sort((a, b) => a[0].localeCompare(b[0]))) {
    const name = base(file)
    code.push({
      item: printCodeItem({ kind: 'file', file: name }),
      label: name,
      detail: file,
      kind: 'file',
      children: [...fns].sort((a, b) => a[0].localeCompare(b[0])).map(([fn, lines]) => ({
        item: printCodeItem({ kind: 'function', name: fn }),
        label: fn,
        kind: 'function' as const,
        children: [
          ...(report.loops ?? [])
            .filter((l) => l.function === fn && l.file !== null && l.line !== null && base(l.file) === name)
            .sort((a, b) => a.line! - b.line!)
            .map((l) => ({ item: printCodeItem({ kind: 'loop', file: name, line: l.line! }), label: `loop at line ${l.line}`, detail: `depth ${l.depth}`, kind: 'loop' as const, children: [] })),
          ...[...lines].sort((a, b) => a - b).map((line) => ({ item: printCodeItem({ kind: 'lines', file: name, from: line, to: line }), label: `line ${line}`, kind: 'line' as const, children: [] }))
        ]
      }))
    })
  }
  // Metrics: every metric at the first cache level, the main ones at the other levels.
  const caches = report.config.levels.map((l) => l.name)
  const tlbs = (report.config.tlb ?? []).map((t) => t.name)
  const metrics: AxisOption[] = METRIC_NAMES.filter((m) => m !== 'tlb_misses' || tlbs.length > 0).map((m) => ({ item: m, label: m, detail: m === 'tlb_misses' ? tlbs[0] : caches[0] }))
  for (const level of [...caches.slice(1), ...tlbs])
    for (const name of ['accesses', 'misses', 'miss_ratio'] as const) metrics.push({ item: printMetricItem({ level, name }), label: `${level}.${name}`, detail: level })
  return { data, code, metrics }
}

export function textFromSelection(s: SliceSelection): string {
  return `[{${s.data.join(',')}},{${s.code.join(',')}},{${s.metrics.join(',')}}]`
}

export type TextParse = { ok: true; selection: SliceSelection; canonical: string } | { ok: false; message: string; column: number | null }

/** The notation typed by the user, as checked items (in canonical spelling) or the error. */
export function selectionFromText(text: string): TextParse {
  try {
    const q = parseSliceQuery(text)
    const selection = { data: q.data.map(printDataItem), code: q.code.map(printCodeItem), metrics: q.metrics.map(printMetricItem) }
    return { ok: true, selection, canonical: textFromSelection(selection) }
  } catch (e) {
    if (e instanceof SliceParseError) return { ok: false, message: e.message, column: e.column }
    throw e
  }
}

export function toggleItem(s: SliceSelection, axis: SliceAxis, item: string): SliceSelection {
  const list = s[axis]
  return { ...s, [axis]: list.includes(item) ? list.filter((x) => x !== item) : [...list, item] }
}

/** Cells as rows (data, code, metrics...) and the reduction over the whole selection last. */
export function computeSliceTable(slice: QuerySlice): ExportTable {
  const rows: ExportTable['rows'] = []
  slice.data.forEach((d, i) => slice.code.forEach((c, j) => rows.push([d, c, ...slice.cells[i]![j]!])))
  rows.push([`(${slice.reduction})`, '', ...slice.total])
  return { columns: ['data', 'code', ...slice.metrics], rows }
}

export interface SliceBar {
  label: string
  value: number
}

/** One bar per data x code cell of one metric (cells without a value are left out). */
export function computeSliceBars(slice: QuerySlice, metric: number): SliceBar[] {
  const out: SliceBar[] = []
  slice.data.forEach((d, i) =>
    slice.code.forEach((c, j) => {
      const v = slice.cells[i]![j]![metric]
      if (v !== null && v !== undefined) out.push({ label: slice.code.length > 1 ? `${d} · ${c}` : d, value: v })
    })
  )
  return out
}

/** Shares of a count per data structure (reduced over the code items); null for ratios, which do not add up. */
export function computeSliceShares(slice: QuerySlice, metric: number): SliceBar[] | null {
  if (slice.derived[metric]) return null
  return slice.data.map((d, i) => ({ label: d, value: slice.byData[i]![metric] ?? 0 })).filter((s) => s.value > 0)
}

export function formatSliceValue(v: number | null | undefined, ratio: boolean): string {
  if (v === null || v === undefined) return '–'
  return ratio ? v.toFixed(3) : v.toLocaleString('en-US', { maximumFractionDigits: 2 })
}

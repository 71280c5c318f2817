/**
 * The Query view's derivations (pure): the axes a user picks from (data structures, a code
 * tree files -> functions -> loops -> lines, metrics per level), the two-way link between
 * the checked items and SIGMA's notation text, and a slice's table and chart series.
 */
import type { QuerySlice, RunReport } from '../../shared/domain'
import { METRIC_NAMES, parseSliceQuery, printCodeItem, printDataItem, printMetricItem, SliceParseError } from '../../shared/slice-notation'
import { computeDataNames } from './data-names'
import { dimsText } from '../../shared/dims-text'
import type { ExportTable } from './export'
import { computeLoopNests, type LoopNest } from './loop-nests'

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
  // Data structures, busiest first, by the name the program uses, with their type; a heap
  // block named only by its allocation site shows its source name, the site as detail.
  const accesses = new Map<string, number>()
  for (const r of report.references) accesses.set(r.variable ?? 'unknown', (accesses.get(r.variable ?? 'unknown') ?? 0) + r.reads + r.writes)
  // A type spells its dimensions; dimensions it does not give (inferred from strides) are added.
  const types = new Map((report.variables ?? []).map((v) => [v.name, [v.type, v.dimsFrom === 'strides' ? dimsText(v) : null].filter(Boolean).join(' · ')]))
  const names = computeDataNames(report)
  const data: AxisOption[] = [
    { item: '*', label: 'all (one row each)' },
    ...[...accesses]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([name, n]) => {
        const site = names.get(name)?.site
        const detail = [site, types.get(name), `${n.toLocaleString('en-US')} accesses`].filter(Boolean).join(' · ')
        return { item: printDataItem({ name, section: null }), label: names.get(name)?.label ?? name, detail }
      })
  ]
  // Code: files -> functions -> loops (by header line) and lines.
  const files = new Map<string, Map<string, Set<number>>>()
  for (const l of report.lines) {
    const fns = files.get(l.file) ?? files.set(l.file, new Map()).get(l.file)!
    const fn = l.function ?? 'unknown'
    ;(fns.get(fn) ?? fns.set(fn, new Set()).get(fn)!).add(l.line)
  }
  // Which functions each loop header is in: its item takes the loop in all of them.
  const fnsOfLoop = new Map<string, Set<string>>()
  for (const l of report.loops ?? [])
    if (l.file !== null && l.line !== null) {
      const k = `${l.file}:${l.line}`
      ;(fnsOfLoop.get(k) ?? fnsOfLoop.set(k, new Set()).get(k)!).add(l.function)
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
          // One entry per loop header, nested as the loops are (lz4 has 19 copies of one loop in a function).
          // A nest is listed under the file of its outer header (so each loop shows once per function).
          ...computeLoopNests(report.loops ?? [], fn)
            .filter((n) => base(n.file) === name)
            .map((n) => loopNode(n, fnsOfLoop)),
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

/**
 * A loop header's entry: `loop at lz4.c:386`, where the header's file is named since an
 * inlined loop's header is in another file than its function; the detail says how many
 * machine-code copies it stands for and which other functions the item takes too.
 */
function loopNode(n: LoopNest, fnsOfLoop: Map<string, Set<string>>): CodeNode {
  const file = base(n.file)
  const copies = n.ids.length > 1 ? `${n.ids.length} copies` : null
  const others = (fnsOfLoop.get(n.key)?.size ?? 1) - 1
  const detail = [`depth ${n.depth}`, copies, others > 0 ? `also in ${others} other function${others > 1 ? 's' : ''}` : null].filter(Boolean).join(' · ')
  return {
    item: printCodeItem({ kind: 'loop', file, line: n.line }),
    label: `loop at ${file}:${n.line}`,
    detail,
    kind: 'loop',
    children: n.children.map((c) => loopNode(c, fnsOfLoop))
  }
}

const matches = (o: AxisOption, q: string) => o.label.toLowerCase().includes(q) || o.item.toLowerCase().includes(q) || (o.detail?.toLowerCase().includes(q) ?? false)

/** The options whose label, notation or detail holds `text` (any case); all for an empty text. */
export function filterAxisOptions(options: readonly AxisOption[], text: string): AxisOption[] {
  const q = text.trim().toLowerCase()
  return q ? options.filter((o) => matches(o, q)) : [...options]
}

/** The tree pruned to the nodes that match `text` and those above them (a match keeps its subtree). */
export function filterCodeNodes(nodes: readonly CodeNode[], text: string): CodeNode[] {
  const q = text.trim().toLowerCase()
  if (!q) return [...nodes]
  const keep = (n: CodeNode): CodeNode | null => {
    if (matches(n, q)) return n
    const children = n.children.map(keep).filter((c): c is CodeNode => c !== null)
    return children.length > 0 ? { ...n, children } : null
  }
  return nodes.map(keep).filter((c): c is CodeNode => c !== null)
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

/**
 * SIGMA section 3.3, the reduction step: statistics facts (counts per data structure x code
 * location x level) in, the selected sub-space out, as cells (data item x code item x metric)
 * plus their reductions along each axis and over the whole selection. Pure.
 *
 * Sum reduces counts over the union of the facts selected (a fact in two overlapping regions
 * counts once) and derives ratios from the summed counts; min and max reduce the cells.
 */
import { StrideError } from '../../../shared/errors'
import type { QuerySlice, SliceReduction } from '../../../shared/domain'
import {
  DERIVED_METRICS,
  printCodeItem,
  printDataItem,
  printMetricItem,
  printSliceQuery,
  type CodeItem,
  type DataItem,
  type MetricItem,
  type SliceQuery
} from '../../../shared/slice-notation'

/** Counts of one data structure (or one section of it) at one source location and level. */
export interface SliceFact {
  variable: string | null
  function: string | null
  file: string | null
  line: number | null
  /** Innermost loop id, or null outside loops. */
  loop: number | null
  /**
   * Bit i set: the accesses counted fall in data item i of the query, an array section
   * (re-simulated facts). 0 for whole-variable facts, attributed by the reference's variable.
   */
  sections: number
  level: number
  reads: number
  writes: number
  readMisses: number
  writeMisses: number
  temporalHits: number | null
  spatialHits: number | null
  evictions: number | null
}

export interface SliceContext {
  run: number
  /** Level names in stats order: caches then TLB levels. */
  levels: string[]
  caches: number
  loops: Array<{ id: number; parent: number | null; file: string | null; line: number | null }>
}

const F_READS = 0
const F_WRITES = 1
const F_RMISS = 2
const F_WMISS = 3
const F_TEMPORAL = 4
const F_SPATIAL = 5
const F_EVICT = 6
const FIELDS = 7

const UNKNOWN = 'unknown'

const fileMatches = (file: string | null, want: string) => file !== null && (file === want || file.endsWith('/' + want))

/** An axis item: its label, and a data structure or function name (matched by hashing) or only a predicate. */
type Resolved = { label: string; match: (f: SliceFact) => boolean; variable?: string; function?: string }


/**
 * Which items of an axis hold a fact: keyed items (whole data structures, functions) by one
 * map lookup, the others by their predicate; so `*` over thousands of data structures stays
 * linear in the facts.
 */
function itemsOf(items: Resolved[]): (f: SliceFact) => number[] {
  const byVariable = new Map<string, number[]>()
  const byFunction = new Map<string, number[]>()
  const others: number[] = []
  items.forEach((it, i) => {
    if (it.variable !== undefined) (byVariable.get(it.variable) ?? byVariable.set(it.variable, []).get(it.variable)!).push(i)
    else if (it.function !== undefined) (byFunction.get(it.function) ?? byFunction.set(it.function, []).get(it.function)!).push(i)
    else others.push(i)
  })
  const empty: number[] = []
  const both: number[] = []
  return (f) => {
    // Whole data structures hold whole-variable facts only (sections are matched by bit).
    const v = (f.sections === 0 && byVariable.get(f.variable ?? UNKNOWN)) || empty
    const fn = byFunction.get(f.function ?? UNKNOWN) ?? empty
    // Most facts hit one keyed list and no predicate: hand it back without copying.
    if (others.length === 0 && (fn.length === 0 || v.length === 0)) return v.length > 0 ? v : fn
    both.length = 0
    for (const i of v) both.push(i)
    for (const i of fn) both.push(i)
    for (const i of others) if (items[i]!.match(f)) both.push(i)
    return both.length > 1 ? [...new Set(both)].sort((a, b) => a - b) : both.slice()
  }
}

function resolveData(items: DataItem[], facts: SliceFact[]): Resolved[] {
  const out: Resolved[] = []
  items.forEach((d, i) => {
    if (d.section) {
      const bit = 2 ** i
      out.push({ label: printDataItem(d), match: (f) => (Math.floor(f.sections / bit) & 1) === 1 })
    } else if (d.name === '*') {
      // Every data structure, busiest first.
      const accesses = new Map<string, number>()
      for (const f of facts) if (f.sections === 0 && f.level === 0) accesses.set(f.variable ?? UNKNOWN, (accesses.get(f.variable ?? UNKNOWN) ?? 0) + f.reads + f.writes)
      for (const [name] of [...accesses].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
        out.push({ label: printDataItem({ name, section: null }), match: (f) => f.sections === 0 && (f.variable ?? UNKNOWN) === name, variable: name })
    } else out.push({ label: printDataItem(d), match: (f) => f.sections === 0 && (f.variable ?? UNKNOWN) === d.name, variable: d.name })
  })
  return out
}

function resolveCode(items: CodeItem[], facts: SliceFact[], ctx: SliceContext): Resolved[] {
  const loops = new Map(ctx.loops.map((l) => [l.id, l]))
  /** Loop ids enclosing (or equal to) a fact's innermost loop. */
  const within = (loop: number | null, target: Set<number>) => {
    for (let id = loop, guard = 0; id !== null && guard < 256; id = loops.get(id)?.parent ?? null, guard++) if (target.has(id)) return true
    return false
  }
  const out: Resolved[] = []
  for (const c of items) {
    switch (c.kind) {
      case 'all': {
        const names = [...new Set(facts.map((f) => f.function ?? UNKNOWN))].sort()
        for (const name of names) out.push({ label: printCodeItem({ kind: 'function', name }), match: (f) => (f.function ?? UNKNOWN) === name, function: name })
        break
      }
      case 'function':
        out.push({ label: printCodeItem(c), match: (f) => f.function === c.name, function: c.name })
        break
      case 'file':
        out.push({ label: printCodeItem(c), match: (f) => fileMatches(f.file, c.file) })
        break
      case 'lines':
        out.push({ label: printCodeItem(c), match: (f) => f.line !== null && f.line >= c.from && f.line <= c.to && fileMatches(f.file, c.file) })
        break
      case 'loop': {
        const ids = new Set(ctx.loops.filter((l) => l.line === c.line && fileMatches(l.file, c.file)).map((l) => l.id))
        if (ids.size === 0) throw new StrideError(`No loop has its header at ${c.file}:${c.line} in this session; the Query view's code tree lists the loops.`, 'not-found')
        out.push({ label: printCodeItem(c), match: (f) => within(f.loop, ids) })
        break
      }
    }
  }
  return out
}

function metricLevel(m: MetricItem, ctx: SliceContext): number {
  if (m.name === 'tlb_misses') {
    if (m.level === null) {
      if (ctx.levels.length === ctx.caches)
        throw new StrideError('tlb_misses: this run simulated no TLB; re-simulate with --tlb DTLB:64:4:4K (or pick a cache metric).', 'invalid-input')
      return ctx.caches
    }
  }
  if (m.level === null) return 0
  const l = ctx.levels.indexOf(m.level)
  if (l < 0) throw new StrideError(`${printMetricItem(m)}: this run has no level "${m.level}"; its levels are ${ctx.levels.join(', ')}.`, 'invalid-input')
  return l
}

function evaluate(acc: Float64Array, level: number, m: MetricItem, caches: number): number | null {
  const at = level * FIELDS
  const reads = acc[at + F_READS]!
  const writes = acc[at + F_WRITES]!
  const misses = acc[at + F_RMISS]! + acc[at + F_WMISS]!
  switch (m.name) {
    case 'loads':
      return reads
    case 'stores':
      return writes
    case 'accesses':
      return reads + writes
    case 'hits':
      return reads + writes - misses
    case 'misses':
    case 'tlb_misses':
      return misses
    case 'load_misses':
      return acc[at + F_RMISS]!
    case 'store_misses':
      return acc[at + F_WMISS]!
    case 'miss_ratio':
      return reads + writes > 0 ? misses / (reads + writes) : null
    case 'hit_ratio':
      return reads + writes > 0 ? 1 - misses / (reads + writes) : null
    case 'temporal_hits':
      return level < caches ? acc[at + F_TEMPORAL]! : null
    case 'spatial_hits':
      return level < caches ? acc[at + F_SPATIAL]! : null
    case 'evictions':
      return acc[at + F_EVICT]!
  }
}

function addFact(acc: Float64Array, f: SliceFact): void {
  const at = f.level * FIELDS
  acc[at + F_READS]! += f.reads
  acc[at + F_WRITES]! += f.writes
  acc[at + F_RMISS]! += f.readMisses
  acc[at + F_WMISS]! += f.writeMisses
  acc[at + F_TEMPORAL]! += f.temporalHits ?? 0
  acc[at + F_SPATIAL]! += f.spatialHits ?? 0
  acc[at + F_EVICT]! += f.evictions ?? 0
}

function reduceValues(values: Array<number | null>, reduction: SliceReduction): number | null {
  let out: number | null = null
  for (const v of values) {
    if (v === null) continue
    out = out === null ? v : reduction === 'min' ? Math.min(out, v) : reduction === 'max' ? Math.max(out, v) : out + v
  }
  return out
}

/** The selected sub-space of the facts, reduced. */
export function computeQuerySlice(query: SliceQuery, reduction: SliceReduction, facts: SliceFact[], ctx: SliceContext): Omit<QuerySlice, 'elapsedMs' | 'resimulated'> {
  const code = resolveCode(query.code, facts, ctx)
  const codeOf = itemsOf(code)
  // `*` lists the data structures the selected code regions touch.
  const data = resolveData(query.data, query.data.some((d) => d.name === '*' && !d.section) ? facts.filter((f) => codeOf(f).length > 0) : facts)
  const metricLevels = query.metrics.map((m) => metricLevel(m, ctx))
  const size = ctx.levels.length * FIELDS
  const cellAcc = data.map(() => code.map(() => new Float64Array(size)))
  const dataAcc = data.map(() => new Float64Array(size))
  const codeAcc = code.map(() => new Float64Array(size))
  const totalAcc = new Float64Array(size)
  const dataOf = itemsOf(data)
  for (const f of facts) {
    const inCode = codeOf(f)
    if (inCode.length === 0) continue
    const inData = dataOf(f)
    if (inData.length === 0) continue
    addFact(totalAcc, f)
    for (const c of inCode) addFact(codeAcc[c]!, f)
    for (const d of inData) {
      addFact(dataAcc[d]!, f)
      for (const c of inCode) addFact(cellAcc[d]![c]!, f)
    }
  }
  const values = (acc: Float64Array) => query.metrics.map((m, i) => evaluate(acc, metricLevels[i]!, m, ctx.caches))
  const cells = cellAcc.map((row) => row.map(values))
  let byData: Array<Array<number | null>>
  let byCode: Array<Array<number | null>>
  let total: Array<number | null>
  if (reduction === 'sum') {
    byData = dataAcc.map(values)
    byCode = codeAcc.map(values)
    total = values(totalAcc)
  } else {
    // Min/max over the cells; a derived metric is taken per cell, then reduced.
    const reduceCells = (pick: Array<Array<number | null>>) => query.metrics.map((_, m) => reduceValues(pick.map((v) => v[m]!), reduction))
    byData = cells.map((row) => reduceCells(row))
    byCode = code.map((_, c) => reduceCells(cells.map((row) => row[c]!)))
    total = reduceCells(cells.flat())
  }
  return {
    run: ctx.run,
    query: printSliceQuery(query),
    reduction,
    data: data.map((d) => d.label),
    code: code.map((c) => c.label),
    metrics: query.metrics.map(printMetricItem),
    derived: query.metrics.map((m) => DERIVED_METRICS.includes(m.name)),
    cells,
    byData,
    byCode,
    total
  }
}

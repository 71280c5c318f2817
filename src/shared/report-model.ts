/**
 * The report model: pure roll-ups of a run's references into lines, functions and level
 * sums, with the derived metrics (spatial reuse) computed the same way everywhere. Shared by
 * the store, the CLI and the renderer: plain data in, plain data out.
 */
import type { FunctionStats, HierarchyConfig, LineLevelStats, LineStats, ReferenceLevelStats, ReferenceStats, RunReport, VariableStats } from './domain'

export function levelNames(config: HierarchyConfig): string[] {
  return [...config.levels.map((l) => l.name), ...(config.tlb ?? []).map((t) => t.name)]
}

export function lineSizes(config: HierarchyConfig): number[] {
  return [...config.levels.map((l) => l.lineSize), ...(config.tlb ?? []).map((t) => t.pageSize)]
}

export function spatialReuse(usedBytes: number, lineEnds: number, lineSize: number): number {
  return lineEnds > 0 ? usedBytes / (lineSize * lineEnds) : 0
}

type Rollup = { reads: number; writes: number; levels: Record<string, LineLevelStats> }
/** Sums kept while rolling up, to derive spatial reuse at the end. */
const reuseInputs = new WeakMap<LineLevelStats, { used: number; ends: number; line: number }>()

export function emptyLevels(names: string[]): Record<string, LineLevelStats> {
  return Object.fromEntries(names.map((n) => [n, { readMisses: 0, writeMisses: 0 }]))
}

/** Adds a reference's counts (and the inputs of derived metrics) into a roll-up. */
export function addInto(target: Rollup, ref: ReferenceStats, names: string[], lines: number[]): void {
  target.reads += ref.reads
  target.writes += ref.writes
  for (const [name, l] of Object.entries(ref.levels)) {
    const t = (target.levels[name] ??= { readMisses: 0, writeMisses: 0 })
    t.readMisses += l.readMisses
    t.writeMisses += l.writeMisses
    t.hits = (t.hits ?? 0) + l.hits
    t.misses = (t.misses ?? 0) + l.misses
    if (l.temporalHits === undefined) continue
    t.temporalHits = (t.temporalHits ?? 0) + l.temporalHits
    t.spatialHits = (t.spatialHits ?? 0) + (l.spatialHits ?? 0)
    const acc = reuseInputs.get(t) ?? { used: 0, ends: 0, line: lines[names.indexOf(name)] ?? 1 }
    acc.used += l.usedBytes ?? 0
    acc.ends += l.lineEnds ?? 0
    reuseInputs.set(t, acc)
    t.spatialReuse = spatialReuse(acc.used, acc.ends, acc.line)
  }
}

/** Per source line; references without a line (no debug info) are left out here. */
export function groupLines(references: ReferenceStats[], names: string[], lines: number[] = []): LineStats[] {
  const out = new Map<string, LineStats>()
  for (const ref of references) {
    if (!ref.file || !ref.line) continue
    const key = `${ref.file}\0${ref.line}`
    let l = out.get(key)
    if (!l) {
      l = { file: ref.file, line: ref.line, function: ref.function, reads: 0, writes: 0, levels: emptyLevels(names) }
      out.set(key, l)
    }
    addInto(l, ref, names, lines)
  }
  return [...out.values()].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

export function groupFunctions(report: RunReport): FunctionStats[] {
  const names = levelNames(report.config)
  const lines = lineSizes(report.config)
  const out = new Map<string, FunctionStats>()
  for (const ref of report.references) {
    const key = ref.function ?? '(unknown)'
    const f = out.get(key) ?? { function: key, reads: 0, writes: 0, levels: emptyLevels(names) }
    addInto(f, ref, names, lines)
    out.set(key, f)
  }
  return [...out.values()]
}

/** A reference's figures scaled to one share of its accesses (misses and evictions apportioned). */
function shareOf(ref: ReferenceStats, f: number): ReferenceStats {
  const scale = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * f))
  const levels: Record<string, ReferenceLevelStats> = {}
  for (const [name, l] of Object.entries(ref.levels)) {
    const s: ReferenceLevelStats = { hits: scale(l.hits)!, misses: scale(l.misses)!, readMisses: scale(l.readMisses)!, writeMisses: scale(l.writeMisses)! }
    if (l.temporalHits !== undefined) {
      s.temporalHits = scale(l.temporalHits)!
      s.spatialHits = scale(l.spatialHits)!
      s.usedBytes = scale(l.usedBytes)!
      s.lineEnds = scale(l.lineEnds)!
    }
    levels[name] = s
  }
  return { ...ref, reads: Math.round(ref.reads * f), writes: Math.round(ref.writes * f), levels, evictors: ref.evictors?.map((e) => ({ ...e, count: Math.round(e.count * f) })) }
}

/** Per variable, with evictors rolled up to variables (which data structures evict which). */
export function groupVariables(report: RunReport): VariableStats[] {
  const names = levelNames(report.config)
  const lines = lineSizes(report.config)
  const out = new Map<string, VariableStats>()
  const catalog = new Map((report.variables ?? []).map((v) => [v.name, v]))
  const varOfRef = new Map(report.references.map((r) => [r.id, r.variable ?? 'unknown']))
  const evictors = new Map<string, Map<string, number>>()
  for (const whole of report.references) {
    // Each access counts for the data structure it touched: a reference on several is split.
    const total = whole.touches?.reduce((a, t) => a + t.accesses, 0) ?? 0
    const parts = whole.touches && total > 0 ? whole.touches.map((t) => ({ key: t.variable, ref: shareOf(whole, t.accesses / total) })) : [{ key: whole.variable ?? 'unknown', ref: whole }]
    for (const { key, ref } of parts) {
      const info = catalog.get(key)
      const v = out.get(key) ?? {
        variable: key,
        kind: info?.kind ?? 'unknown',
        ...(info ? { type: info.type, dims: info.dims, size: info.size, allocSite: info.allocSite } : {}),
        reads: 0,
        writes: 0,
        levels: emptyLevels(names)
      }
      addInto(v, ref, names, lines)
      if (parts.length > 1) v.apportioned = true
      out.set(key, v)
      for (const e of ref.evictors ?? []) {
        if (e.count <= 0) continue
        const m = evictors.get(key) ?? new Map<string, number>()
        const by = `${e.level}\0${varOfRef.get(e.by) ?? e.by}`
        m.set(by, (m.get(by) ?? 0) + e.count)
        evictors.set(key, m)
      }
    }
  }
  for (const [key, m] of evictors) {
    const totals = new Map<string, number>()
    for (const [k, c] of m) totals.set(k.split('\0')[0]!, (totals.get(k.split('\0')[0]!) ?? 0) + c)
    out.get(key)!.evictors = [...m]
      .map(([k, count]) => {
        const [level, by] = k.split('\0') as [string, string]
        return { level, by, count, fraction: count / totals.get(level)! }
      })
      .sort((a, b) => b.count - a.count)
  }
  return [...out.values()]
}

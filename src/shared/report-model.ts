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
  const levels: Record<string, LineLevelStats> = {}
  for (const n of names) levels[n] = { readMisses: 0, writeMisses: 0 }
  return levels
}

/** Adds a reference's counts (and the inputs of derived metrics) into a roll-up. */
export function addInto(target: Rollup, ref: ReferenceStats, names: string[], lines: number[]): void {
  target.reads += ref.reads
  target.writes += ref.writes
  // for-in, not Object.entries: no array per reference and level (reports have thousands).
  for (const name in ref.levels) {
    const l = ref.levels[name]!
    const t = (target.levels[name] ??= { readMisses: 0, writeMisses: 0 })
    t.readMisses += l.readMisses
    t.writeMisses += l.writeMisses
    t.hits = (t.hits ?? 0) + l.hits
    t.misses = (t.misses ?? 0) + l.misses
    if (l.temporalHits === undefined) continue
    t.temporalHits = (t.temporalHits ?? 0) + l.temporalHits
    t.spatialHits = (t.spatialHits ?? 0) + (l.spatialHits ?? 0)
    let acc = reuseInputs.get(t)
    if (!acc) reuseInputs.set(t, (acc = { used: 0, ends: 0, line: lines[names.indexOf(name)] ?? 1 }))
    acc.used += l.usedBytes ?? 0
    acc.ends += l.lineEnds ?? 0
    t.spatialReuse = spatialReuse(acc.used, acc.ends, acc.line)
  }
}

/**
 * Loads what groupLines' sort needs: the first localeCompare of a thread loads ICU's collation
 * data (~8 ms). Called where a thread waits anyway (a worker idle, a program running), so a
 * report's build does not pay it.
 */
export function loadCollation(): void {
  'a'.localeCompare('b')
}

/** Per source line; references without a line (no debug info) are left out here. */
export function groupLines(references: ReferenceStats[], names: string[], lines: number[] = []): LineStats[] {
  // Found by file, then line (no text key built per reference); kept in first-seen order.
  const byFile = new Map<string, Map<number, LineStats>>()
  const out: LineStats[] = []
  for (const ref of references) {
    if (!ref.file || !ref.line) continue
    let byLine = byFile.get(ref.file)
    if (!byLine) byFile.set(ref.file, (byLine = new Map()))
    let l = byLine.get(ref.line)
    if (!l) {
      l = { file: ref.file, line: ref.line, function: ref.function, reads: 0, writes: 0, levels: emptyLevels(names) }
      byLine.set(ref.line, l)
      out.push(l)
    }
    addInto(l, ref, names, lines)
  }
  return out.sort((a, b) => compareLines(a.file, a.line, b.file, b.line))
}

/**
 * The report's order of lines: by file (as the user's locale sorts text), then line. Files the
 * collation calls equal keep a fixed order (their text's), whichever reference was met first.
 */
export function compareLines(fileA: string, lineA: number, fileB: string, lineB: number): number {
  return fileA.localeCompare(fileB) || lineA - lineB || (fileA < fileB ? -1 : fileA > fileB ? 1 : 0)
}

/** A line's accesses and misses per level: what a run's table by line shows of it. */
export interface LineMisses {
  file: string
  line: number
  reads: number
  writes: number
  levels: Record<string, { readMisses: number; writeMisses: number }>
}

/** A run's totals and its lines' misses, without its references: all `stride simulate` prints of a run. */
export interface LineReport extends Pick<RunReport, 'run' | 'config' | 'levels' | 'cacheContext'> {
  lines: LineMisses[]
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

/**
 * `total` split in proportion to `weights` by largest remainders: whole numbers that add up to
 * `total` exactly, each within 1 of its exact share (ties to the earlier weight). The one rule
 * by which a reference touching several data structures has its misses, hits and evictions
 * divided among them, wherever a roll-up by data structure is shown (report, diff, slices).
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  if (weights.length === 1) return [total]
  const sum = weights.reduce((a, w) => a + w, 0)
  if (sum <= 0 || weights.length === 0) return weights.map((_, i) => (i === 0 ? total : 0))
  const exact = weights.map((w) => (total * w) / sum)
  const out = exact.map(Math.floor)
  let left = total - out.reduce((a, n) => a + n, 0)
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((x, y) => y.r - x.r || x.i - y.i)
  for (let k = 0; left > 0 && order.length > 0; k = (k + 1) % order.length, left--) out[order[k]!.i]! += 1
  return out
}

/**
 * A reference's figures split over the data structures it touched: as the simulator counted
 * them where the run has each part's figures (`apportioned` false), else by the parts' shares
 * of its accesses. Evictor lists (who evicted the reference's lines) are divided by access shares either way.
 */
export function splitReference(ref: ReferenceStats): Array<{ variable: string; ref: ReferenceStats; apportioned: boolean }> {
  const touches = ref.touches ?? []
  const weights = touches.map((t) => t.accesses)
  if (touches.length === 0 || weights.reduce((a, w) => a + w, 0) <= 0) return [{ variable: ref.variable ?? 'unknown', ref, apportioned: false }]
  if (touches.every((t) => t.levels !== undefined)) {
    // Who evicted whom is kept per reference, not per data structure: those lists alone are divided.
    const evictorCounts = ref.evictors?.map((e) => ({ e, counts: apportion(e.count, weights) }))
    return touches.map((t, i) => ({
      variable: t.variable,
      ref: { ...ref, reads: t.reads ?? 0, writes: t.writes ?? 0, levels: t.levels!, evictors: evictorCounts?.map(({ e, counts }) => ({ ...e, count: counts[i]! })) },
      apportioned: false
    }))
  }
  const split = (n: number) => apportion(n, weights)
  const splitOptional = (n: number | undefined) => (n === undefined ? undefined : split(n))
  const reads = split(ref.reads)
  const writes = split(ref.writes)
  const levels = Object.entries(ref.levels).map(([name, l]) => ({
    name,
    hits: split(l.hits),
    misses: split(l.misses),
    readMisses: split(l.readMisses),
    writeMisses: split(l.writeMisses),
    temporalHits: splitOptional(l.temporalHits),
    spatialHits: splitOptional(l.spatialHits),
    usedBytes: splitOptional(l.usedBytes),
    lineEnds: splitOptional(l.lineEnds)
  }))
  const evictors = ref.evictors?.map((e) => ({ e, counts: split(e.count) }))
  return touches.map((t, i) => {
    const part: Record<string, ReferenceLevelStats> = {}
    for (const l of levels) {
      const s: ReferenceLevelStats = { hits: l.hits[i]!, misses: l.misses[i]!, readMisses: l.readMisses[i]!, writeMisses: l.writeMisses[i]! }
      if (l.temporalHits) {
        s.temporalHits = l.temporalHits[i]!
        s.spatialHits = l.spatialHits?.[i] ?? 0
        s.usedBytes = l.usedBytes?.[i] ?? 0
        s.lineEnds = l.lineEnds?.[i] ?? 0
      }
      part[l.name] = s
    }
    return {
      variable: t.variable,
      ref: { ...ref, reads: reads[i]!, writes: writes[i]!, levels: part, evictors: evictors?.map(({ e, counts }) => ({ ...e, count: counts[i]! })) },
      apportioned: true
    }
  })
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
    const parts = splitReference(whole)
    for (const { variable: key, ref, apportioned } of parts) {
      const info = catalog.get(key)
      const v = out.get(key) ?? {
        variable: key,
        kind: info?.kind ?? 'unknown',
        ...(info ? { type: info.type, dims: info.dims, dimsFrom: info.dimsFrom ?? null, size: info.size, allocSite: info.allocSite } : {}),
        reads: 0,
        writes: 0,
        levels: emptyLevels(names)
      }
      addInto(v, ref, names, lines)
      if (apportioned) v.apportioned = true
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

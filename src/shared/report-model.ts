/**
 * The report model: pure roll-ups of a run's references into lines, functions and level
 * sums, with the derived metrics (spatial reuse) computed the same way everywhere. Shared by
 * the store, the CLI and the renderer: plain data in, plain data out.
 */
import type { FunctionStats, HierarchyConfig, LineLevelStats, LineStats, ReferenceStats, RunReport } from './domain'

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

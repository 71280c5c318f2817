/**
 * A run against its baseline (a what-if against the run it came from, or any two runs or
 * sessions of the same program): per line, data structure, reference and level, the change
 * in misses and in miss ratio. Lines match by file:line, data structures by name, references
 * by their site (the instruction: function and offset, shared/reference-names.ts; a name of
 * the older, rank-numbered form by itself), levels by name, so two sessions of the same
 * program compare even though their addresses, and the points their traces saw, differ. One model for the CLI (`report --against`, a what-if's baseline) and the
 * renderer (Compare, the heatmap's diff paint).
 */
import type { LineLevelStats, ReferenceLevelStats, RunReport } from './domain'
import { groupLines, groupVariables, levelNames, lineSizes } from './report-model'
import { referenceSite } from './reference-names'

export interface DiffRow {
  /** "file:line", a data structure's name, or a level's name. */
  key: string
  file: string | null
  line: number | null
  /** Accesses reaching the level (base, current). */
  baseAccesses: number
  accesses: number
  baseMisses: number
  misses: number
  /** misses - baseMisses: negative is an improvement. */
  delta: number
  baseRatio: number | null
  ratio: number | null
  /** ratio - baseRatio, null when either is unknown. */
  deltaRatio: number | null
  /** A reference named otherwise in the baseline (its data structure named differently there): the baseline's name. */
  baseKey?: string
  /** A level only one of the runs simulated: nothing to compare, said instead of a delta. */
  onlyIn?: 'base' | 'current'
}

export interface RunDiff {
  level: string
  /** The chosen level is missing from the baseline run: lines and data structures are empty. */
  levelMissingInBase: boolean
  /** Level totals, for every level both runs have. */
  levels: DiffRow[]
  lines: DiffRow[]
  /** Each access to the data structure it touched (as `report --by variable` splits them). */
  variables: DiffRow[]
  /** Access points, matched by site, keyed by the current run's name (else the baseline's). */
  references: DiffRow[]
}

interface Counts {
  /** The name to show, where it is not the map's key (references: the key is the site). */
  name?: string
  file: string | null
  line: number | null
  accesses: number
  misses: number
}

const ratioOf = (c: Counts | undefined) => (c && c.accesses > 0 ? c.misses / c.accesses : null)

function row(key: string, base: Counts | undefined, cur: Counts | undefined): DiffRow {
  const baseRatio = ratioOf(base)
  const ratio = ratioOf(cur)
  return {
    key,
    file: cur?.file ?? base?.file ?? null,
    line: cur?.line ?? base?.line ?? null,
    baseAccesses: base?.accesses ?? 0,
    accesses: cur?.accesses ?? 0,
    baseMisses: base?.misses ?? 0,
    misses: cur?.misses ?? 0,
    delta: (cur?.misses ?? 0) - (base?.misses ?? 0),
    baseRatio,
    ratio,
    deltaRatio: baseRatio !== null && ratio !== null ? ratio - baseRatio : null
  }
}

function join(base: Map<string, Counts>, cur: Map<string, Counts>): DiffRow[] {
  const keys = new Set([...base.keys(), ...cur.keys()])
  return [...keys]
    .map((k) => {
      const b = base.get(k)
      const c = cur.get(k)
      const r = row(c?.name ?? b?.name ?? k, b, c)
      return b?.name !== undefined && c?.name !== undefined && b.name !== c.name ? { ...r, baseKey: b.name } : r
    })
    .sort((a, b) => a.delta - b.delta || a.key.localeCompare(b.key))
}

/** Accesses reaching a level and its misses, from any roll-up's figures there. */
function countsOf(file: string | null, line: number | null, l: LineLevelStats | ReferenceLevelStats | undefined): Counts {
  const misses = l?.misses ?? (l ? l.readMisses + l.writeMisses : 0)
  return { file, line, accesses: (l?.hits ?? 0) + misses, misses }
}

/** Per source line of a level (the references' figures summed, as the report model rolls them up). */
function lineCounts(report: RunReport, level: string): Map<string, Counts> {
  const lines = groupLines(report.references, levelNames(report.config), lineSizes(report.config))
  return new Map(lines.map((l) => [`${l.file}:${l.line}`, countsOf(l.file, l.line, l.levels[level])]))
}

/** Per data structure: each access to the one it touched (groupVariables' split). */
function variableCounts(report: RunReport, level: string): Map<string, Counts> {
  return new Map(groupVariables(report).map((v) => [v.variable, countsOf(null, null, v.levels[level])]))
}

/** Per reference, by site: the same instruction in two sessions of one build, whatever each named its data structure. */
function referenceCounts(report: RunReport, level: string): Map<string, Counts> {
  return new Map(report.references.map((r) => [referenceSite(r.id), { ...countsOf(r.file, r.line, r.levels[level]), name: r.id }]))
}

/** Level totals: the accesses that reached each level (reads + writes there) and its misses. */
function levelCounts(report: RunReport): Map<string, Counts> {
  return new Map(report.levels.map((l) => [l.name, { file: null, line: null, accesses: l.reads + l.writes, misses: l.readMisses + l.writeMisses }]))
}

/** One run's side of a diff at a level: its counts per line, data structure and reference. */
interface DiffSide {
  lines: Map<string, Counts>
  variables: Map<string, Counts>
  references: Map<string, Counts>
}

/**
 * Sides counted, per report and level (reports are not changed once made). Rolling a
 * whole-program run up by line and data structure is most of a diff; a what-if's baseline is
 * counted while the simulation runs (prepareDiffSide), so only the new run's side is left
 * when it arrives.
 */
const sides = new WeakMap<RunReport, Map<string, DiffSide>>()

function sideOf(report: RunReport, level: string): DiffSide {
  let byLevel = sides.get(report)
  if (!byLevel) sides.set(report, (byLevel = new Map()))
  let side = byLevel.get(level)
  if (!side) byLevel.set(level, (side = { lines: lineCounts(report, level), variables: variableCounts(report, level), references: referenceCounts(report, level) }))
  return side
}

/** Counts `report`'s side of a diff at `level` ahead (kept with the report, used by computeRunDiff). */
export function prepareDiffSide(report: RunReport, level: string): void {
  sideOf(report, level)
}

/**
 * Levels match by name. A level only one run has (an L2 added by a what-if) is reported as
 * such, never as "0 -> 1,540 misses": the baseline did not have zero misses there, it had no
 * such level.
 */
export function computeRunDiff(base: RunReport, current: RunReport, level: string): RunDiff {
  const baseLevels = levelCounts(base)
  const currentLevels = levelCounts(current)
  const levels = [...currentLevels].map(([k, c]) => (baseLevels.has(k) ? row(k, baseLevels.get(k), c) : { ...row(k, undefined, c), delta: 0, onlyIn: 'current' as const }))
  for (const [k, c] of baseLevels) if (!currentLevels.has(k)) levels.push({ ...row(k, c, undefined), delta: 0, onlyIn: 'base' as const })
  const levelMissingInBase = !baseLevels.has(level)
  return {
    level,
    levelMissingInBase,
    levels,
    ...(levelMissingInBase ? { lines: [], variables: [], references: [] } : joinSides(sideOf(base, level), sideOf(current, level)))
  }
}

function joinSides(base: DiffSide, current: DiffSide): Pick<RunDiff, 'lines' | 'variables' | 'references'> {
  return { lines: join(base.lines, current.lines), variables: join(base.variables, current.variables), references: join(base.references, current.references) }
}

/** Per line of one file, the change in misses (what the heatmap paints in diff mode). */
export function computeLineDeltas(diff: RunDiff, file: string): Map<number, number> {
  const out = new Map<number, number>()
  for (const r of diff.lines) if (r.file === file && r.line !== null) out.set(r.line, r.delta)
  return out
}


/** Simulation runs: storing a finished run, and reading it back in the CLI/API shapes. */
import { StrideError } from '../../shared/api'
import type {
  FunctionStats,
  HierarchyConfig,
  LevelTotals,
  LineLevelStats,
  LineStats,
  ReferenceStats,
  RunReport,
  VariableStats
} from '../../shared/domain'
import type { Db } from './open-db'
import { readPoints } from './session-reader'

const F_READS = 0
const F_WRITES = 1
const F_READ_MISSES = 2
const F_WRITE_MISSES = 3

/** Stores totals and the per point x level counts (layout of simulate/hierarchy.ts). */
export function storeRun(db: Db, config: HierarchyConfig, accesses: number, totals: LevelTotals[], pointStats: Float64Array, pointCount: number): number {
  const nLevels = config.levels.length
  return db.transaction(() => {
    const run = Number(
      db.prepare('INSERT INTO runs (created_at, config, accesses) VALUES (?, ?, ?)').run(new Date().toISOString(), JSON.stringify(config), accesses).lastInsertRowid
    )
    const level = db.prepare('INSERT INTO run_levels (run, level, name, reads, writes, read_misses, write_misses) VALUES (?,?,?,?,?,?,?)')
    totals.forEach((t, l) => level.run(run, l, t.name, t.reads, t.writes, t.readMisses, t.writeMisses))
    const point = db.prepare('INSERT INTO run_points (run, point, level, reads, writes, read_misses, write_misses) VALUES (?,?,?,?,?,?,?)')
    for (let p = 0; p < pointCount; p++) {
      for (let l = 0; l < nLevels; l++) {
        const at = (p * nLevels + l) * 4
        const reads = pointStats[at + F_READS]!
        const writes = pointStats[at + F_WRITES]!
        if (reads === 0 && writes === 0) continue
        point.run(run, p, l, reads, writes, pointStats[at + F_READ_MISSES]!, pointStats[at + F_WRITE_MISSES]!)
      }
    }
    return run
  })()
}

export function latestRun(db: Db): number | null {
  const row = db.prepare('SELECT MAX(run) AS run FROM runs').get() as { run: number | null }
  return row.run
}

interface RunPointRow {
  point: number
  level: number
  reads: number
  writes: number
  read_misses: number
  write_misses: number
}

export function buildReport(db: Db, runArg: number | null): RunReport {
  const run = runArg ?? latestRun(db)
  if (run === null) throw new StrideError('This session has no simulation runs yet; run "stride simulate SESSION --cache L1:32K:8:64" first.', 'not-found')
  const runRow = db.prepare('SELECT config FROM runs WHERE run = ?').get(run) as { config: string } | undefined
  if (!runRow) throw new StrideError(`Run ${run} is not in this session; "stride info" lists its runs.`, 'not-found')
  const config = JSON.parse(runRow.config) as HierarchyConfig
  const names = config.levels.map((l) => l.name)
  const levels = (db.prepare('SELECT name, reads, writes, read_misses, write_misses FROM run_levels WHERE run = ? ORDER BY level').all(run) as Array<{
    name: string; reads: number; writes: number; read_misses: number; write_misses: number
  }>).map((r) => ({ name: r.name, reads: r.reads, writes: r.writes, readMisses: r.read_misses, writeMisses: r.write_misses }))

  const points = readPoints(db)
  const rows = db.prepare('SELECT point, level, reads, writes, read_misses, write_misses FROM run_points WHERE run = ? ORDER BY point, level').all(run) as RunPointRow[]
  const refs = new Map<number, ReferenceStats>()
  for (const r of rows) {
    const p = points[r.point]
    if (!p) continue
    let ref = refs.get(r.point)
    if (!ref) {
      ref = { id: p.id, pc: p.pc, kind: p.kind, file: p.file, line: p.line, function: p.function, variable: p.variable, reads: 0, writes: 0, levels: {} }
      refs.set(r.point, ref)
    }
    if (r.level === 0) {
      ref.reads = r.reads
      ref.writes = r.writes
    }
    const name = names[r.level] ?? `L${r.level + 1}`
    const accesses = r.reads + r.writes
    const misses = r.read_misses + r.write_misses
    ref.levels[name] = { hits: accesses - misses, misses, readMisses: r.read_misses, writeMisses: r.write_misses }
  }
  const references = [...refs.values()]
  return { run, config, levels, lines: groupLines(references, names), references }
}

function emptyLevels(names: string[]): Record<string, LineLevelStats> {
  return Object.fromEntries(names.map((n) => [n, { readMisses: 0, writeMisses: 0 }]))
}

function addInto(target: { reads: number; writes: number; levels: Record<string, LineLevelStats> }, ref: ReferenceStats): void {
  target.reads += ref.reads
  target.writes += ref.writes
  for (const [name, l] of Object.entries(ref.levels)) {
    const t = (target.levels[name] ??= { readMisses: 0, writeMisses: 0 })
    t.readMisses += l.readMisses
    t.writeMisses += l.writeMisses
  }
}

/** Per source line; references without a line (no debug info) are left out here. */
export function groupLines(references: ReferenceStats[], names: string[]): LineStats[] {
  const lines = new Map<string, LineStats>()
  for (const ref of references) {
    if (!ref.file || !ref.line) continue
    const key = `${ref.file}\0${ref.line}`
    let l = lines.get(key)
    if (!l) {
      l = { file: ref.file, line: ref.line, function: ref.function, reads: 0, writes: 0, levels: emptyLevels(names) }
      lines.set(key, l)
    }
    addInto(l, ref)
  }
  return [...lines.values()].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

export function groupFunctions(report: RunReport): FunctionStats[] {
  const names = report.config.levels.map((l) => l.name)
  const out = new Map<string, FunctionStats>()
  for (const ref of report.references) {
    const key = ref.function ?? '(unknown)'
    const f = out.get(key) ?? { function: key, reads: 0, writes: 0, levels: emptyLevels(names) }
    addInto(f, ref)
    out.set(key, f)
  }
  return [...out.values()]
}

export function groupVariables(report: RunReport): VariableStats[] {
  const names = report.config.levels.map((l) => l.name)
  const out = new Map<string, VariableStats>()
  for (const ref of report.references) {
    const key = ref.variable ?? 'unknown'
    const v = out.get(key) ?? { variable: key, reads: 0, writes: 0, levels: emptyLevels(names) }
    addInto(v, ref)
    out.set(key, v)
  }
  return [...out.values()]
}

/**
 * A run's report in two parts: what the run changes (RunFigures, what a what-if asks for) and
 * what no run of the recording changes (ReferenceStatics, which a client keeps from the first
 * report it gets), and the join that makes them the RunReport again. A whole-program session's
 * report is ~5,500 references; their names, source lines, disassembly and stream metrics were
 * over half of every what-if's 3.7 MB answer.
 */
import type { ReferenceFigures, ReferenceStatics, ReferenceStats, RunFigures, RunReport, StaticReference } from './domain'

/** The report's figures: each reference's own counts, found again by its id. Empty key: an unfinished recording's. */
export function figuresOf(report: RunReport): RunFigures {
  const references = report.references.map((r): ReferenceFigures => (r.evictors ? { id: r.id, reads: r.reads, writes: r.writes, levels: r.levels, evictors: r.evictors } : { id: r.id, reads: r.reads, writes: r.writes, levels: r.levels }))
  return { run: report.run, config: report.config, levels: report.levels, lines: report.lines, references, ...(report.timelines ? { timelines: report.timelines } : {}), staticsKey: report.staticsKey ?? '' }
}

/** What of `report` no other run of its recording changes; null for an unfinished recording's. */
export function staticsOf(report: RunReport): ReferenceStatics | null {
  if (!report.staticsKey) return null
  const references = report.references.map((r): StaticReference => {
    const { reads: _r, writes: _w, levels: _l, evictors: _e, ...rest } = r
    return rest
  })
  return { staticsKey: report.staticsKey, references, ...(report.variables ? { variables: report.variables } : {}), ...(report.loops ? { loops: report.loops } : {}) }
}

/**
 * The report the figures are of, or null when `statics` cannot complete it: another recording
 * (or an unfinished one), a reference it lacks, or two references with one id.
 */
export function joinReport(figures: RunFigures, statics: ReferenceStatics): RunReport | null {
  if (!figures.staticsKey || statics.staticsKey !== figures.staticsKey) return null
  const byId = new Map<string, StaticReference>()
  for (const s of statics.references) {
    if (byId.has(s.id)) return null
    byId.set(s.id, s)
  }
  const references: ReferenceStats[] = []
  for (const f of figures.references) {
    const s = byId.get(f.id)
    if (!s) return null
    // The fields in the order the store builds them (store/runs.ts buildReport).
    const ref: ReferenceStats = {
      id: s.id,
      pc: s.pc,
      kind: s.kind,
      file: s.file,
      line: s.line,
      function: s.function,
      variable: s.variable,
      ...(s.sourceExpr !== undefined ? { sourceExpr: s.sourceExpr } : {}),
      ...(s.disasm !== undefined ? { disasm: s.disasm } : {}),
      reads: f.reads,
      writes: f.writes,
      levels: f.levels
    }
    if (s.streams) ref.streams = s.streams
    if (f.evictors) ref.evictors = f.evictors
    if (s.touches) ref.touches = s.touches
    references.push(ref)
  }
  const report: RunReport = { run: figures.run, config: figures.config, levels: figures.levels, lines: figures.lines, references }
  if (figures.timelines) report.timelines = figures.timelines
  if (statics.variables) report.variables = statics.variables
  if (statics.loops) report.loops = statics.loops
  report.staticsKey = figures.staticsKey
  return report
}

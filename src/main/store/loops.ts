/** The session's loop nests (schema v6) in the API's shape, and per-loop roll-ups of a run. */
import { basename } from 'node:path'
import type { LoopInfo, LoopStats, RunReport } from '../../shared/domain'
import type { Db } from './open-db'
import { addInto, emptyLevels, levelNames, lineSizes } from '../../shared/report-model'
import { allRows } from './rows'

export function readLoopNests(db: Db): LoopInfo[] {
  const loops = allRows(db.prepare('SELECT id, function, start, end, depth, parent, file, line FROM loops ORDER BY id'), { id: 'number', function: 'text', start: 'number', end: 'number', depth: 'number', parent: 'number?', file: 'text?', line: 'number?' })
  const refs = allRows(db.prepare('SELECT pl.loop AS loop, p.ref_id AS ref FROM point_loops pl JOIN points p ON p.idx = pl.point ORDER BY p.pc'), { loop: 'number', ref: 'text?' })
  const byLoop = new Map<number, string[]>()
  for (const r of refs) if (r.ref) (byLoop.get(r.loop) ?? byLoop.set(r.loop, []).get(r.loop)!).push(r.ref)
  return loops.map((l) => ({
    id: l.id,
    function: l.function,
    start: '0x' + l.start.toString(16),
    end: '0x' + l.end.toString(16),
    depth: l.depth,
    parent: l.parent,
    file: l.file,
    line: l.line,
    references: byLoop.get(l.id) ?? []
  }))
}

export function loopName(l: Pick<LoopInfo, 'function' | 'file' | 'line' | 'start'>): string {
  return `${l.function} loop@${l.file && l.line ? `${basename(l.file)}:${l.line}` : l.start}`
}

/** Per loop, the accesses and misses of its references and of every loop nested in it. */
export function groupLoops(report: RunReport): LoopStats[] {
  const loops = report.loops ?? []
  const refs = new Map(report.references.map((r) => [r.id, r]))
  const names = levelNames(report.config)
  const lines = lineSizes(report.config)
  const stats: LoopStats[] = loops.map((l) => ({
    loop: l.id,
    name: loopName(l),
    function: l.function,
    depth: l.depth,
    parent: l.parent,
    file: l.file,
    line: l.line,
    reads: 0,
    writes: 0,
    levels: emptyLevels(names)
  }))
  const byId = new Map(stats.map((s) => [s.loop, s]))
  for (const l of loops) {
    for (const id of l.references) {
      const ref = refs.get(id)
      if (!ref) continue
      // Add into this loop and every loop enclosing it.
      for (let at: LoopStats | undefined = byId.get(l.id); at; at = at.parent === null ? undefined : byId.get(at.parent)) addInto(at, ref, names, lines)
    }
  }
  return stats
}

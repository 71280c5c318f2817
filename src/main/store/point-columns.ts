/**
 * The per-point columns a simulation and the roll-up of its run take from the point table
 * (kind; data structure, function, file, line, innermost loop), read in one statement: a
 * what-if's worker used to read the table three times for them (kinds, variables, the rest),
 * a good part of a short simulation's time on a whole-program session (5,000+ points).
 */
import { StrideError } from '../../shared/errors'
import { hasTable, type Db } from './open-db'
import { allTuples } from './rows'
import type { PointFactColumns } from './slice-facts'

export interface PointColumns {
  /** Kind code per point, the simulator's input. */
  kinds: Uint8Array
  /** The columns a slice fact takes from its point; `variable` is also the simulator's timeline key. */
  facts: PointFactColumns
}

export function readPointColumns(db: Db): PointColumns {
  const loops = hasTable(db, 'point_loops')
  const rows = allTuples(
    db.prepare(`SELECT p.idx, p.kind, p.variable, p.function, p.file, p.line, ${loops ? 'pl.loop' : 'NULL'} AS loop FROM points p ${loops ? 'LEFT JOIN point_loops pl ON pl.point = p.idx' : ''} ORDER BY p.idx`),
    [['idx', 'int'], ['kind', 'number'], ['variable', 'text?'], ['function', 'text?'], ['file', 'text?'], ['line', 'int?'], ['loop', 'int?']] as const
  )
  const kinds = new Uint8Array(rows.length)
  const facts: PointFactColumns = { variable: [], function: [], file: [], line: [], loop: [] }
  // By index, not destructured: thousands of rows, read once per session on a cold path.
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    const idx = row[0]
    if (idx >= rows.length) throw new StrideError('The session\'s point table has gaps; the file is damaged. Re-trace the program.', 'malformed-session')
    kinds[idx] = row[1]
    facts.variable[idx] = row[2]
    facts.function[idx] = row[3]
    facts.file[idx] = row[4]
    facts.line[idx] = row[5]
    facts.loop[idx] = row[6]
  }
  return { kinds, facts }
}

/**
 * The same columns from what the session writer was given (writePoints' points and names,
 * writeLoops' point loops), value for value what readPointColumns reads back: for the trace's
 * worker, which stores its first simulation's run right after writing them (reading them back
 * took 10-14 ms of a whole-program trace's end).
 */
export function pointColumnsOf(
  points: ReadonlyArray<{ idx: number; kind: number }>,
  names: ReadonlyArray<{ idx: number; variable: string | null; function: string | null; file: string | null; line: number | null }>,
  pointLoops: ReadonlyMap<number, number>
): PointColumns {
  const byIdx = new Map(names.map((n) => [n.idx, n]))
  const n = points.length
  const kinds = new Uint8Array(n)
  const column = () => new Array<null>(n).fill(null) as never[]
  const facts: PointFactColumns = { variable: column(), function: column(), file: column(), line: column(), loop: column() }
  for (const p of points) {
    if (p.idx >= n) throw new StrideError('The session\'s point table has gaps; the file is damaged. Re-trace the program.', 'malformed-session')
    const name = byIdx.get(p.idx)
    kinds[p.idx] = p.kind
    facts.variable[p.idx] = name?.variable ?? null
    facts.function[p.idx] = name?.function ?? null
    facts.file[p.idx] = name?.file ?? null
    facts.line[p.idx] = name?.line ?? null
    facts.loop[p.idx] = pointLoops.get(p.idx) ?? null
  }
  return { kinds, facts }
}

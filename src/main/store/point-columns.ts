/**
 * The per-point columns a simulation and the roll-up of its run take from the point table
 * (kind; data structure, function, file, line, innermost loop), read in one statement: a
 * what-if's worker used to read the table three times for them (kinds, variables, the rest),
 * a good part of a short simulation's time on a whole-program session (5,000+ points).
 */
import { StrideError } from '../../shared/errors'
import type { Db } from './open-db'
import { allTuples } from './rows'
import type { PointFactColumns } from './slice-facts'

export interface PointColumns {
  /** Kind code per point, the simulator's input. */
  kinds: Uint8Array
  /** The columns a slice fact takes from its point; `variable` is also the simulator's timeline key. */
  facts: PointFactColumns
}

const hasTable = (db: Db, name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?").get(name) !== undefined

export function readPointColumns(db: Db): PointColumns {
  const loops = hasTable(db, 'point_loops')
  const rows = allTuples(
    db.prepare(`SELECT p.idx, p.kind, p.variable, p.function, p.file, p.line, ${loops ? 'pl.loop' : 'NULL'} AS loop FROM points p ${loops ? 'LEFT JOIN point_loops pl ON pl.point = p.idx' : ''} ORDER BY p.idx`),
    [['idx', 'int'], ['kind', 'number'], ['variable', 'text?'], ['function', 'text?'], ['file', 'text?'], ['line', 'int?'], ['loop', 'int?']] as const
  )
  const kinds = new Uint8Array(rows.length)
  const facts: PointFactColumns = { variable: [], function: [], file: [], line: [], loop: [] }
  for (const [idx, kind, variable, fn, file, line, loop] of rows) {
    if (idx >= rows.length) throw new StrideError('The session\'s point table has gaps; the file is damaged. Re-trace the program.', 'malformed-session')
    kinds[idx] = kind
    facts.variable[idx] = variable
    facts.function[idx] = fn
    facts.file[idx] = file
    facts.line[idx] = line
    facts.loop[idx] = loop
  }
  return { kinds, facts }
}

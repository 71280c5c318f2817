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

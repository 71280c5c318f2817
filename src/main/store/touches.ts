/**
 * What each access point touched: the correlator's exact count of its accesses per data
 * structure (`point_variables`, schema v3). Roll-ups by data structure split a point's
 * figures by these counts (shared/report-model.ts `apportion`).
 */
import type { PointIndex } from '../../shared/domain'
import type { Db } from './open-db'
import { allTuples } from './rows'

export type Touches = Map<PointIndex, Array<{ variable: string; accesses: number }>>

/** Per point, the data structures its accesses fell in (the correlator's exact counts), most first. */
export function readTouches(db: Db): Touches {
  const out = new Map<PointIndex, Array<{ variable: string; accesses: number }>>()
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'point_variables'").get()
  if (!has) return out
  // Rows as arrays (raw mode): a whole-program session has a row or more per point.
  const rows = allTuples(
    db.prepare("SELECT pv.point AS point, COALESCE(v.name, 'unknown') AS name, pv.accesses AS accesses FROM point_variables pv LEFT JOIN variables v ON v.id = pv.variable ORDER BY pv.point, pv.accesses DESC"),
    [['point', 'int'], ['name', 'text'], ['accesses', 'number']] as const
  )
  for (const [point, name, accesses] of rows) {
    const list = out.get(point) ?? []
    addTouch(list, name, accesses)
    out.set(point, list)
  }
  return out
}

/** Two data structures of one name (a static in two files) count as one, where the first was. */
function addTouch(list: Array<{ variable: string; accesses: number }>, name: string, accesses: number): void {
  const same = list.find((t) => t.variable === name)
  if (same) same.accesses += accesses
  else list.push({ variable: name, accesses })
}

/**
 * The same map from what the session writer was given (writeVariables' data structures and
 * per-point histograms), value for value what readTouches reads back after it: for the trace's
 * worker, which stores its first run right after writing them (reading them back took 10-15 ms
 * of a whole-program trace's end). Same order: points ascending, most accesses first, ties by
 * data structure id (the order the table's key gives them).
 */
export function touchesOf(variables: ReadonlyArray<{ id: number; name: string }>, histograms: ReadonlyMap<number, ReadonlyMap<number, number>>): Touches {
  const names = new Map(variables.map((v) => [v.id, v.name]))
  const out: Touches = new Map()
  for (const point of [...histograms.keys()].sort((a, b) => a - b)) {
    const counts = [...histograms.get(point)!].sort((a, b) => b[1] - a[1] || a[0] - b[0])
    const list: Array<{ variable: string; accesses: number }> = []
    for (const [id, accesses] of counts) addTouch(list, names.get(id) ?? 'unknown', accesses)
    out.set(point, list)
  }
  return out
}

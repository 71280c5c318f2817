import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseSliceQuery } from '../../shared/slice-notation'
import { openDb } from './open-db'
import { rollUpRun } from './rollup'
import { migrate } from './schema'
import { factFilter, readSliceFacts, resolveFiles } from './slice-facts'
import { computeQuerySlice } from '../analysis/query/slice-reduce'

// A run of 4 points: A and B read in foo (two on line 10), B written in bar, one point without a variable.
function session() {
  const db = openDb(join(mkdtempSync(join(tmpdir(), 'stride-facts-')), 's.stride'), { create: true })
  migrate(db)
  db.prepare("INSERT INTO runs (run, created_at, config, accesses) VALUES (1, '', '{}', 0)").run()
  const point = db.prepare('INSERT INTO points (idx, pc, kind, file, line, function, variable) VALUES (?,?,?,?,?,?,?)')
  point.run(0, 1, 0, '/src/k.c', 10, 'foo', 'A')
  point.run(1, 2, 0, '/src/k.c', 10, 'foo', 'B')
  point.run(2, 3, 1, '/src/m.c', 20, 'bar', 'B')
  point.run(3, 4, 0, '/src/m.c', 21, 'bar', null)
  db.prepare('INSERT INTO point_loops (point, loop) VALUES (0, 7)').run()
  const rp = db.prepare('INSERT INTO run_points (run, point, level, reads, writes, read_misses, write_misses) VALUES (1,?,?,?,?,?,?)')
  const m = db.prepare('INSERT INTO run_point_metrics (run, point, level, temporal_hits, spatial_hits, used_bytes, line_ends, evictions) VALUES (1,?,?,?,?,0,0,?)')
  rp.run(0, 0, 100, 0, 10, 0)
  m.run(0, 0, 50, 40, 9)
  rp.run(1, 0, 100, 0, 30, 0)
  m.run(1, 0, 20, 50, 29)
  rp.run(2, 0, 0, 40, 0, 40)
  m.run(2, 0, 0, 0, 40)
  rp.run(3, 0, 5, 0, 1, 0)
  m.run(3, 0, 0, 4, 1)
  return db
}

describe('readSliceFacts', () => {
  const db = session()
  const ctx = { run: 1, levels: ['L1'], caches: 1, loops: [{ id: 7, parent: null, file: '/src/k.c', line: 9 }] }
  const slice = (text: string) => {
    const q = parseSliceQuery(text)
    return computeQuerySlice(q, 'sum', readSliceFacts(db, 1, factFilter(db, q)), ctx)
  }

  it('filters through the indexes and gives the same numbers as the whole run', () => {
    const named = slice('[{A,B},{foo,bar},{loads,stores,misses,evictions}]')
    expect(named.cells).toEqual([
      [[100, 0, 10, 9], [0, 0, 0, 0]],
      [[100, 0, 30, 29], [0, 40, 40, 40]]
    ])
    const all = slice('[{*},{*},{misses,temporal_hits}]')
    expect(all.data).toEqual(['B', 'A', 'unknown']) // busiest first
    expect(all.total).toEqual([81, 70])
  })

  it('reads loops, files and lines, and knows points without a variable as unknown', () => {
    expect(slice('[{*},{loop@k.c:9},{loads}]').total).toEqual([100])
    expect(slice('[{*},{m.c},{accesses}]').total).toEqual([45])
    expect(slice('[{unknown},{m.c:21},{misses}]').total).toEqual([1])
    expect(slice('[{A},{bar},{loads}]').cells).toEqual([[[0]]])
  })

  it('resolves file names by their last path components', () => {
    expect(resolveFiles(db, ['m.c'])).toEqual(['/src/m.c'])
    expect(resolveFiles(db, ['src/k.c', 'x.c'])).toEqual(['/src/k.c'])
  })

  it('answers whole-run slices from the roll-up with the same numbers as the per-point rows', () => {
    const queries = ['[{*},{*},{loads,stores,misses,temporal_hits,evictions}]', '[{A,B},{foo,bar},{misses,miss_ratio}]', '[{*},{loop@k.c:9},{loads}]', '[{B},{*},{accesses}]']
    const before = queries.map((q) => slice(q))
    rollUpRun(db, 1)
    expect(db.prepare('SELECT COUNT(*) AS n FROM run_rollup').get()).toEqual({ n: 0 }) // 4 points in 4 groups: not worth keeping
    rollUpRun(db, 1, 1)
    expect(db.prepare('SELECT COUNT(*) AS n FROM run_rollup').get()).toEqual({ n: 4 })
    expect(queries.map((q) => slice(q))).toEqual(before)
    // Files and lines still come from the points.
    expect(slice('[{*},{m.c},{accesses}]').total).toEqual([45])
  })
})

describe('readSliceFacts: a point on several data structures', () => {
  // Point 0 touched A 3 times for every B access (two threads, one function); point 1 only B.
  function split() {
    const db = openDb(join(mkdtempSync(join(tmpdir(), 'stride-split-')), 's.stride'), { create: true })
    migrate(db)
    db.prepare("INSERT INTO runs (run, created_at, config, accesses) VALUES (1, '', '{}', 0)").run()
    const point = db.prepare('INSERT INTO points (idx, pc, kind, file, line, function, variable) VALUES (?,?,?,?,?,?,?)')
    point.run(0, 1, 0, '/src/t.c', 5, 'work', 'A')
    point.run(1, 2, 0, '/src/t.c', 6, 'work', 'B')
    const variable = db.prepare("INSERT INTO variables (id, name, kind) VALUES (?, ?, 'global')")
    variable.run(1, 'A')
    variable.run(2, 'B')
    const pv = db.prepare('INSERT INTO point_variables (point, variable, accesses) VALUES (?,?,?)')
    pv.run(0, 1, 300)
    pv.run(0, 2, 100)
    pv.run(1, 2, 50)
    const rp = db.prepare('INSERT INTO run_points (run, point, level, reads, writes, read_misses, write_misses) VALUES (1,?,?,?,?,?,?)')
    const m = db.prepare('INSERT INTO run_point_metrics (run, point, level, temporal_hits, spatial_hits, used_bytes, line_ends, evictions) VALUES (1,?,?,?,?,0,0,?)')
    rp.run(0, 0, 400, 0, 41, 0)
    m.run(0, 0, 200, 159, 40)
    rp.run(1, 0, 50, 0, 5, 0)
    m.run(1, 0, 10, 35, 5)
    return db
  }
  const ctx = { run: 1, levels: ['L1'], caches: 1, loops: [] }

  it('splits accesses exactly and misses, hits and evictions by the same shares, sums intact', () => {
    const db = split()
    const slice = (text: string) => {
      const q = parseSliceQuery(text)
      return computeQuerySlice(q, 'sum', readSliceFacts(db, 1, factFilter(db, q)), ctx)
    }
    const all = slice('[{A,B},{work},{loads,misses,temporal_hits,evictions}]')
    // A: 3/4 of point 0; B: 1/4 of point 0 plus point 1. 41 misses split 31 (30.75) + 10.
    expect(all.cells).toEqual([[[300, 31, 150, 30]], [[150, 15, 60, 15]]])
    expect(slice('[{*},{*},{misses}]').total).toEqual([46])
    // A filter on B finds point 0 too, which B did not dominate.
    expect(slice('[{B},{*},{loads}]').total).toEqual([150])
    // The roll-up (kept here at any size) answers with the same numbers.
    const before = [slice('[{*},{*},{loads,misses,evictions}]'), slice('[{A,B},{work},{misses}]')]
    rollUpRun(db, 1, 0)
    expect(db.prepare('SELECT variable, reads, read_misses FROM run_rollup ORDER BY variable').all()).toEqual([
      { variable: 'A', reads: 300, read_misses: 31 },
      { variable: 'B', reads: 150, read_misses: 15 }
    ])
    expect([slice('[{*},{*},{loads,misses,evictions}]'), slice('[{A,B},{work},{misses}]')]).toEqual(before)
  })
})

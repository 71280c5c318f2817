/**
 * storeRun writes a run's rows with multi-row statements and its roll-up from the rows in
 * memory: the rows must be exactly the simulator's, and the roll-up exactly what rolling up
 * the stored rows again gives (a point on two data structures split 3:1, points in a loop).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EXTRA_FIELDS, STAT_FIELDS, STAT_LINE_ENDS, STAT_READS, STAT_WRITES } from '../simulate/hierarchy'
import { openDb, type Db } from './open-db'
import { rollUpRun } from './rollup'
import { buildReport, lineReportOfRun, readRun, reportOfRun, storeRun, type SimulationResult } from './runs'
import type { KeptRun } from './run-rows'
import { migrate } from './schema'
import { SessionStatics } from './session-statics'
import { figuresOf, joinReport, staticsOf } from '../../shared/report-figures'

const POINTS = 300
const LEVELS = 2

function session(): Db {
  const db = openDb(join(mkdtempSync(join(tmpdir(), 'stride-runs-')), 's.stride'), { create: true })
  migrate(db)
  const point = db.prepare('INSERT INTO points (idx, pc, kind, ref_id, file, line, function, variable) VALUES (?,?,?,?,?,?,?,?)')
  for (let p = 0; p < POINTS; p++) point.run(p, 0x401000 + p * 4, p % 3, `ref_${p}`, '/src/k.c', 10 + (p % 7), p < 200 ? 'foo' : 'bar', p % 3 === 0 ? 'B' : 'A')
  const loop = db.prepare('INSERT INTO point_loops (point, loop) VALUES (?, 7)')
  for (let p = 0; p < 100; p++) loop.run(p)
  db.prepare("INSERT INTO variables (id, name, kind) VALUES (1, 'A', 'global'), (2, 'B', 'heap')").run()
  // Point 5 touched A three times as often as B; point 6 only A.
  db.prepare('INSERT INTO point_variables (point, variable, accesses) VALUES (5, 1, 300), (5, 2, 100), (6, 1, 40)').run()
  return db
}

/** Figures that differ per point and level; every 11th point never accessed (no row stored). */
function result(): SimulationResult {
  const pointStats = new Float64Array(POINTS * LEVELS * STAT_FIELDS)
  for (let p = 0; p < POINTS; p++)
    for (let l = 0; l < LEVELS; l++) {
      if (p % 11 === 0) continue
      const at = (p * LEVELS + l) * STAT_FIELDS
      for (let f = 0; f < STAT_FIELDS; f++) pointStats[at + f] = (p * 7 + l * 13 + f * 3) % 50
      pointStats[at + STAT_READS] = 100 + p
      pointStats[at + STAT_WRITES] = l === 0 ? p % 5 : 0
      pointStats[at + STAT_LINE_ENDS] = 1
    }
  return {
    config: { levels: [{ name: 'L1', size: 1024, assoc: 2, lineSize: 64, policy: 'lru' }, { name: 'L2', size: 8192, assoc: 4, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false },
    accesses: 1000,
    totals: [
      { name: 'L1', reads: 900, writes: 100, readMisses: 90, writeMisses: 10 },
      { name: 'L2', reads: 90, writes: 10, readMisses: 9, writeMisses: 1 }
    ],
    pointStats,
    pointCount: POINTS,
    extras: new Float64Array(LEVELS * EXTRA_FIELDS).fill(2),
    evictors: [Array.from({ length: 150 }, (_, i) => ({ evictee: i, evictor: (i * 7) % POINTS, count: 1 + (i % 9) })), [{ evictee: 3, evictor: -3, count: 4 }]],
    timeline: Array.from({ length: 70 }, (_, i) => ({ level: 0, variable: i % 2 ? 'A' : 'B', interval: i >> 1, misses: i })),
    timelineInterval: 10
  }
}

const rollupRows = (db: Db, run: number) =>
  db.prepare('SELECT level, variable, function, loop, reads, writes, read_misses, write_misses, temporal_hits, spatial_hits, evictions FROM run_rollup WHERE run = ? ORDER BY rowid').raw(true).all(run)

describe('storeRun', () => {
  it('stores every non-empty point row, evictor and timeline cell exactly, past one multi-row statement', () => {
    const db = session()
    const r = result()
    const run = storeRun(db, r)
    const expected: number[][] = []
    for (let p = 0; p < POINTS; p++)
      for (let l = 0; l < LEVELS; l++) {
        const at = (p * LEVELS + l) * STAT_FIELDS
        if (p % 11 !== 0) expected.push([p, l, ...Array.from(r.pointStats.subarray(at, at + 4))])
      }
    expect(db.prepare('SELECT point, level, reads, writes, read_misses, write_misses FROM run_points WHERE run = ? ORDER BY point, level').raw(true).all(run)).toEqual(expected)
    expect(db.prepare('SELECT COUNT(*) FROM run_point_metrics WHERE run = ?').pluck().get(run)).toBe(expected.length)
    expect(db.prepare('SELECT evictee, evictor, count FROM run_evictors WHERE run = ? AND level = 0 ORDER BY evictee').raw(true).all(run)).toEqual(r.evictors[0]!.map((e) => [e.evictee, e.evictor, e.count]))
    expect(db.prepare('SELECT COUNT(*) FROM run_timeline WHERE run = ?').pluck().get(run)).toBe(70)
  })

  it('rolls the run up from memory exactly as rolling up the stored rows does, a point on two structures split 3:1', () => {
    const db = session()
    const run = storeRun(db, result())
    const stored = rollupRows(db, run)
    expect(stored.length).toBeGreaterThan(0)
    db.prepare('DELETE FROM run_rollup WHERE run = ?').run(run)
    rollUpRun(db, run)
    expect(rollupRows(db, run)).toEqual(stored)
    // B's group in foo's loop: the points B dominates, but not point 6 (it touched only A),
    // and B's quarter of point 5 (reads 105 at L1, split 3:1 between A and B).
    const bInLoop = db.prepare("SELECT reads FROM run_rollup WHERE run = ? AND level = 0 AND variable = 'B' AND function = 'foo' AND loop = 7").pluck().get(run) as number
    let onlyB = 0
    for (let p = 0; p < 100; p++) if (p % 11 !== 0 && p % 3 === 0 && p !== 6) onlyB += 100 + p
    expect(bInLoop).toBe(onlyB + Math.round(105 / 4))
  })

  it('reports the same run whether the session statics are fresh or kept from an earlier report', () => {
    const db = session()
    const statics = new SessionStatics()
    const first = storeRun(db, result(), statics)
    buildReport(db, first, statics)
    const second = storeRun(db, result(), statics)
    expect(buildReport(db, second, statics)).toEqual(buildReport(db, second))
  })

  it('hands out a run ahead of its commit that reports exactly as the stored run, timeline order included', () => {
    const db = session()
    const r = result()
    // Data structure names whose order differs between JavaScript's and SQLite's (UTF-8) text order.
    const names = ['B', 'A', 'std::map<int, int>', '\uFF01x', '\u{1F600}', 'ü']
    r.timeline = Array.from({ length: 90 }, (_, i) => ({ level: i % 2, variable: names[(i >> 1) % names.length]!, interval: 44 - (i >> 1), misses: i + 1 }))
    let ahead: { run: number; kept: KeptRun; inFile: number } | null = null
    const run = storeRun(db, r, new SessionStatics(), (id, kept) => {
      ahead = { run: id, kept, inFile: db.prepare('SELECT COUNT(*) FROM run_points WHERE run = ?').pluck().get(id) as number }
    })
    const got = ahead as unknown as { run: number; kept: KeptRun; inFile: number }
    expect(got.run).toBe(run)
    expect(got.inFile).toBe(0) // handed out before the rows were written
    const fromFile = buildReport(db, run)
    expect(fromFile.timelines!.length).toBe(2)
    expect(Object.keys(fromFile.timelines![0]!.series)).toEqual(['A', 'B', 'std::map<int, int>', 'ü', '\uFF01x', '\u{1F600}'])
    expect(JSON.stringify(reportOfRun(db, run, got.kept, new SessionStatics()))).toBe(JSON.stringify(fromFile))
  })

  it("makes a run's totals and lines' misses without its references exactly as its whole report has them", () => {
    const db = session()
    // Points without a line (no debug info), points with rows at L2 only, lines of several
    // files met in another order than the report's (by file, then line).
    db.prepare('UPDATE points SET file = NULL, line = NULL WHERE idx % 17 = 5').run()
    db.prepare("UPDATE points SET file = '/src/a.c', line = 40 - idx % 9 WHERE idx % 4 = 1 AND file IS NOT NULL").run()
    db.prepare("UPDATE points SET file = '/src/B.c' WHERE idx % 23 = 2").run()
    const r = result()
    for (let p = 0; p < POINTS; p += 13) r.pointStats.fill(0, p * LEVELS * STAT_FIELDS, (p * LEVELS + 1) * STAT_FIELDS)
    // A data TLB as the third level: the line sums skip its temporal figures, as the report's do.
    const withTlb: SimulationResult = {
      ...r,
      config: { ...r.config, tlb: [{ name: 'DTLB', entries: 64, assoc: 4, pageSize: 4096 }] },
      totals: [...r.totals, { name: 'DTLB', reads: 900, writes: 100, readMisses: 5, writeMisses: 1 }],
      pointStats: Float64Array.from({ length: POINTS * 3 * STAT_FIELDS }, (_, i) => {
        const p = Math.floor(i / (3 * STAT_FIELDS))
        const l = Math.floor(i / STAT_FIELDS) % 3
        return l < 2 ? r.pointStats[(p * LEVELS + l) * STAT_FIELDS + (i % STAT_FIELDS)]! : p % 11 === 0 ? 0 : (p * 3 + (i % STAT_FIELDS)) % 7
      }),
      extras: new Float64Array(3 * EXTRA_FIELDS).fill(1),
      evictors: [...r.evictors, []]
    }
    for (const sim of [r, withTlb]) {
      const statics = new SessionStatics()
      const run = storeRun(db, sim, statics)
      const whole = buildReport(db, run)
      expect(whole.lines.length).toBeGreaterThan(5)
      const lines = lineReportOfRun(db, run, readRun(db, run, new SessionStatics()), statics)
      const shown = whole.lines.map((l) => ({
        file: l.file,
        line: l.line,
        reads: l.reads,
        writes: l.writes,
        levels: Object.fromEntries(Object.entries(l.levels).map(([name, m]) => [name, { readMisses: m.readMisses, writeMisses: m.writeMisses }]))
      }))
      expect(JSON.stringify(lines)).toBe(JSON.stringify({ run: whole.run, config: whole.config, levels: whole.levels, lines: shown }))
    }
  })

  it('stores nothing of a run whose transaction fails after handing it out', () => {
    const db = session()
    expect(() =>
      storeRun(db, result(), new SessionStatics(), () => {
        throw new Error('the reader went away')
      })
    ).toThrow('the reader went away')
    expect(db.prepare('SELECT COUNT(*) FROM runs').pluck().get()).toBe(0)
  })

  it('builds a report from kept rows only for the run stored under that id', () => {
    const db = session()
    const statics = new SessionStatics()
    const run = storeRun(db, result(), statics)
    // Another run under the same id (a restored copy of the file): the kept rows are not it.
    db.prepare("UPDATE runs SET created_at = '2000-01-01T00:00:00.000Z' WHERE run = ?").run(run)
    db.prepare('UPDATE run_points SET reads = reads + 1 WHERE run = ?').run(run)
    const report = buildReport(db, run, statics)
    expect(report).toEqual(buildReport(db, run))
    expect(report.references.find((r) => r.id === 'ref_1')!.reads).toBe(102)
  })
})

describe('report figures', () => {
  /** The session as a finished recording leaves it (what a report's staticsKey names), one point with stream metrics. */
  function finished(): Db {
    const db = session()
    db.prepare(`INSERT INTO meta (key, value) VALUES ('createdAt', '"2026-11-26T15:00:00.000Z"'), ('events', '1000')`).run()
    db.prepare('INSERT INTO point_streams (point, metrics) VALUES (1, ?)').run(JSON.stringify({ point: 1, accesses: 101, regularity: 0.5, meanStreamLength: 4, streams: 2, distinctLengths: 1, distinctStrides: 1, lengths: [4], strides: [8] }))
    return db
  }

  it('completes a run from its figures and another run of the recording, exactly as the store reports it', () => {
    const db = finished()
    const first = buildReport(db, storeRun(db, result()))
    const other = result()
    other.pointStats = other.pointStats.map((v, i) => (v > 0 ? v + (i % 4) : v))
    other.evictors = [[{ evictee: 5, evictor: 6, count: 3 }], []]
    const second = buildReport(db, storeRun(db, other))
    expect(first.staticsKey).toMatch(/\S/)
    expect(second.staticsKey).toBe(first.staticsKey)
    expect(second.references.some((r) => r.touches) && second.references.some((r) => r.streams)).toBe(true)
    const joined = joinReport(figuresOf(second), staticsOf(first)!)
    expect(joined).toEqual(second)
    // The same fields in the same order: the JSON is byte for byte the report's.
    expect(JSON.stringify(joined)).toBe(JSON.stringify(second))
    expect(JSON.stringify(figuresOf(second)).length).toBeLessThan(JSON.stringify(second).length)
  })

  it('does not complete figures from another recording, an unfinished one, or statics missing a reference', () => {
    const db = finished()
    const report = buildReport(db, storeRun(db, result()))
    const statics = staticsOf(report)!
    expect(joinReport({ ...figuresOf(report), staticsKey: 'another recording' }, statics)).toBeNull()
    expect(joinReport(figuresOf(report), { ...statics, references: statics.references.slice(1) })).toBeNull()
    expect(joinReport(figuresOf(report), { ...statics, references: [...statics.references, statics.references[0]!] })).toBeNull()
    const open = session()
    const unfinished = buildReport(open, storeRun(open, result()))
    expect(unfinished.staticsKey).toBeUndefined()
    expect(staticsOf(unfinished)).toBeNull()
    expect(figuresOf(unfinished).staticsKey).toBe('')
  })
})

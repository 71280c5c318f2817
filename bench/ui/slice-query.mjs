#!/usr/bin/env node
// Slice queries (SIGMA section 3.3) over a run of 1M reference x line rows, side by side:
//   stride : Stride's query (readSliceFacts: one prepared statement, filtered through the
//            indexes on points.variable / points.function, or over the run's roll-up when the
//            code axis names only functions and loops) + computeQuerySlice
//   no-idx : the same on the same file without those indexes and without the roll-up
//   naive  : read every row of the run into JS (one row per reference x level), then filter
//            and sum there, as a view would without a query engine
// The session: 500,000 access points (2,000 variables, 5,000 functions in 50 files, each
// point on its own source line, half in loops) x 2 levels = 1,000,000 run_points rows and
// as many run_point_metrics rows. Median of 7 runs after one warm-up.
// Usage: node bench/ui/slice-query.mjs [POINTS] [DATA STRUCTURES PER FUNCTION, 0 = random]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'

const POINTS = Number(process.argv[2] ?? 500_000)
// Data structures a function touches: 0 = any of them at random (the worst case: every point its
// own data structure x function x loop); K = K of its own, as in real code.
const VARS_PER_FUNCTION = Number(process.argv[3] ?? 0)
const LEVELS = 2
const VARIABLES = 2000
const FUNCTIONS = 5000
const FILES = 50
const src = join(import.meta.dirname, '..', '..', 'src')

async function bundle(dir) {
  const { build } = await import('rolldown')
  const entry = join(dir, 'entry.ts')
  writeFileSync(
    entry,
    [
      `export { factFilter, readSliceFacts } from ${JSON.stringify(join(src, 'main/store/slice-facts.ts'))}`,
      `export { computeQuerySlice } from ${JSON.stringify(join(src, 'main/analysis/query/slice-reduce.ts'))}`,
      `export { parseSliceQuery } from ${JSON.stringify(join(src, 'shared/slice-notation.ts'))}`,
      `export { migrate } from ${JSON.stringify(join(src, 'main/store/schema.ts'))}`,
      `export { rollUpRun } from ${JSON.stringify(join(src, 'main/store/rollup.ts'))}`
    ].join('\n')
  )
  const file = join(dir, 'slice.mjs')
  await build({ input: entry, output: { file, format: 'esm' }, logLevel: 'silent' })
  return import(pathToFileURL(file).href)
}

function fill(db, migrate) {
  migrate(db)
  let x = 12345
  const rand = (n) => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0
    return x % n
  }
  db.transaction(() => {
    db.prepare("INSERT INTO runs (run, created_at, config, accesses) VALUES (1, '', ?, 0)").run(JSON.stringify({ levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }, { name: 'L2', size: 262144, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false }))
    const point = db.prepare('INSERT INTO points (idx, pc, kind, accesses, file, line, function, variable) VALUES (?,?,?,?,?,?,?,?)')
    const loop = db.prepare('INSERT INTO point_loops (point, loop) VALUES (?, ?)')
    const rp = db.prepare('INSERT INTO run_points (run, point, level, reads, writes, read_misses, write_misses) VALUES (1,?,?,?,?,?,?)')
    const rm = db.prepare('INSERT INTO run_point_metrics (run, point, level, temporal_hits, spatial_hits, used_bytes, line_ends, evictions) VALUES (1,?,?,?,?,?,?,?)')
    for (let p = 0; p < POINTS; p++) {
      const fn = p % FUNCTIONS
      point.run(p, 0x400000 + p * 4, p % 3 === 0 ? 1 : 0, 1000, `/src/file${fn % FILES}.c`, 1 + Math.floor(p / FUNCTIONS), `f${fn}`, `v${VARS_PER_FUNCTION > 0 ? (fn * 7 + rand(VARS_PER_FUNCTION)) % VARIABLES : rand(VARIABLES)}`)
      if (p % 2 === 0) loop.run(p, fn)
      let accesses = 1000
      for (let l = 0; l < LEVELS; l++) {
        const misses = rand(accesses + 1)
        rp.run(p, l, accesses, 0, misses, 0)
        rm.run(p, l, rand(accesses - misses + 1), 0, 0, 0, misses)
        accesses = misses
      }
    }
    // One loop per function (id = function number), headed at line 1 of its file.
    const loopRow = db.prepare('INSERT INTO loops (id, function, start, end, depth, parent, file, line) VALUES (?, ?, 0, 0, 1, NULL, ?, 1)')
    for (let fn = 0; fn < FUNCTIONS; fn++) loopRow.run(fn, `f${fn}`, `/src/file${fn % FILES}.c`)
  })()
}

/** The naive path: every row of the run into JS, then filter and sum per data x code cell. */
function naive(db, variables, functions) {
  const rows = db.prepare('SELECT p.variable, p.function, rp.level, rp.reads, rp.writes, rp.read_misses, rp.write_misses FROM run_points rp JOIN points p ON p.idx = rp.point WHERE rp.run = 1').all()
  const cells = new Map()
  for (const r of rows) {
    if (r.level !== 0) continue
    if (variables && !variables.includes(r.variable)) continue
    if (functions && !functions.includes(r.function)) continue
    const key = `${r.variable}\0${r.function}`
    const c = cells.get(key) ?? { accesses: 0, misses: 0 }
    c.accesses += r.reads + r.writes
    c.misses += r.read_misses + r.write_misses
    cells.set(key, c)
  }
  return cells
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
function time(f, runs = 7) {
  f()
  const ms = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    f()
    ms.push(performance.now() - t)
  }
  return median(ms)
}

const dir = mkdtempSync(join(tmpdir(), 'stride-bench-slice-'))
const KEEP = process.env.KEEP_BENCH_DB === '1'
try {
  const m = await bundle(dir)
  const path = join(dir, 'bench.stride')
  const t0 = performance.now()
  const db = new Database(path)
  fill(db, m.migrate)
  const rows = db.prepare('SELECT COUNT(*) AS n FROM run_points').get().n
  // What storing a run does after its per-point rows (store/runs.ts): the roll-up, once.
  const t1 = performance.now()
  m.rollUpRun(db, 1)
  const rollupRows = db.prepare('SELECT COUNT(*) AS n FROM run_rollup').get().n
  db.close()
  console.log(`session: ${rows.toLocaleString('en-US')} run_points rows (${POINTS.toLocaleString('en-US')} references x ${LEVELS} levels), built in ${((t1 - t0) / 1000).toFixed(1)} s; roll-up ${rollupRows.toLocaleString('en-US')} rows in ${((performance.now() - t1) / 1000).toFixed(1)} s`)

  const plain = join(dir, 'no-index.stride')
  const copy = new Database(path)
  await copy.backup(plain)
  copy.close()
  const noIdx = new Database(plain)
  noIdx.exec('DROP INDEX points_variable; DROP INDEX points_function; DELETE FROM run_rollup;')
  const ctx = { run: 1, levels: ['L1', 'L2'], caches: 2, loops: new Database(path, { readonly: true }).prepare('SELECT id, parent, file, line FROM loops').all() }
  const withIdx = new Database(path, { readonly: true })

  const queries = [
    ['[{v17,v42},{f3,f1234},{misses,miss_ratio}]', { variables: ['v17', 'v42'], functions: ['f3', 'f1234'] }],
    ['[{v17,v42,v99},{*},{loads,misses}]', { variables: ['v17', 'v42', 'v99'], functions: null }],
    ['[{*},{f3},{loads,misses}]', { variables: null, functions: ['f3'] }],
    ['[{*},{file7.c},{misses}]', { variables: null, functions: null, file: '/src/file7.c' }],
    // A loop cannot go through an index: this one reads the whole run (the worst case).
    ['[{*},{loop@file8.c:1},{misses}]', { variables: null, functions: null, loopFile: 8 }]
  ]
  console.log('\nquery                                         stride ms  no-idx ms  naive ms  cells  total misses (stride = naive)')
  if (process.env.BENCH_BUILD_ONLY === '1') queries.length = 0
  for (const [text, filter] of queries) {
    const q = m.parseSliceQuery(text)
    const run = (db) => m.computeQuerySlice(q, 'sum', m.readSliceFacts(db, 1, m.factFilter(db, q)), ctx)
    const a = time(() => run(withIdx))
    const b = time(() => run(noIdx), 3)
    const c = time(() => naive(withIdx, filter.variables, filter.functions), 3)
    const slice = run(withIdx)
    // Cross-check the totals against the naive sums over the same selection.
    let naiveMisses = 0
    const rowsAll = withIdx.prepare('SELECT p.variable, p.function, p.file, pl.loop, rp.read_misses + rp.write_misses AS misses FROM run_points rp JOIN points p ON p.idx = rp.point LEFT JOIN point_loops pl ON pl.point = p.idx WHERE rp.run = 1 AND rp.level = 0').all()
    for (const r of rowsAll) {
      if (filter.variables && !filter.variables.includes(r.variable)) continue
      if (filter.functions && !filter.functions.includes(r.function)) continue
      if (filter.file && r.file !== filter.file) continue
      if (filter.loopFile !== undefined && (r.loop === null || r.loop % FILES !== filter.loopFile)) continue
      naiveMisses += r.misses
    }
    const total = slice.total[slice.metrics.indexOf('misses')]
    if (total !== naiveMisses) throw new Error(`${text}: stride total ${total} != naive ${naiveMisses}`)
    console.log(`${text.padEnd(44)} ${a.toFixed(1).padStart(9)}  ${b.toFixed(1).padStart(9)}  ${c.toFixed(1).padStart(8)}  ${String(slice.data.length * slice.code.length).padStart(5)}  ${total}`)
  }
  withIdx.close()
  noIdx.close()
} finally {
  if (KEEP) console.log(`kept ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}

/** The Valgrind backend through the real CLI: filtering, limits, crashes and clear errors. */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import type { RunReport } from '../../../shared/domain'
import { example, fixedEnv, sessionInfo, stride, strideOk, tempDir } from '../../testing/cli-runner'

const dir = tempDir('trace')
const env = fixedEnv(dir)

const info = (session: string) => sessionInfo(session, env)

function compile(source: string, out: string, flags: string[]): string {
  const r = spawnSync('cc', [...flags, '-o', out, source], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return out
}

/** One clear line on stderr and a non-zero exit. */
function expectCleanError(r: { status: number | null; stderr: string }, pattern: RegExp): void {
  expect(r.status).not.toBe(0)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(r.stderr).toMatch(pattern)
}

describe('stride trace (Valgrind backend)', () => {
  it('--functions keeps only the accesses made inside those functions', () => {
    const session = join(dir, 'mult-fn.stride')
    strideOk(['trace', '--launch', example('mult'), '--functions', 'do_mult', '--out', session], env)
    const s = info(session)
    expect(s.partial).toBe(false)
    expect(s.events).toBeGreaterThanOrEqual(3 * 1000 * 1000)
    expect(new Set(s.points.map((p) => p.function))).toEqual(new Set(['do_mult']))
    const ids = s.points.filter((p) => p.accesses >= 999_000).map((p) => p.id.replace(/(_\d+)?@[^@]*$/, ''))
    expect(ids.sort()).toEqual(['A_Read', 'A_Write', 'B_Read'])
  })

  it('--max-events stops the run, keeps the trace and marks it partial', () => {
    const session = join(dir, 'micro-max.stride')
    const out = strideOk(['trace', '--launch', example('micro'), '--max-events', '5000', '--out', session], env)
    // The program's own output comes first: it has the terminal.
    expect(out).toMatch(/^5000 events, \d+ access points, \d+ bytes stored, compression [\d.]+x \(partial: max-events/m)
    const s = info(session)
    expect(s).toMatchObject({ events: 5000, partial: true, stopReason: 'max-events' })
    // The partial trace simulates like any other.
    const report = JSON.parse(strideOk(['simulate', session, '--cache', 'L1:32K:8:64', '--json'], env)) as RunReport
    expect(report.levels[0]!.reads + report.levels[0]!.writes).toBeGreaterThanOrEqual(5000)
  })

  it('a target that crashes mid-trace leaves a partial session that says why', () => {
    const program = compile(join(__dirname, 'fixtures', 'crash.c'), join(dir, 'crash'), ['-g', '-O1'])
    const session = join(dir, 'crash.stride')
    const r = stride(['trace', '--launch', program, '--functions', 'fill', '--out', session], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/partial: target-crashed — the program crashed: .*signal 11/)
    const s = info(session)
    expect(s).toMatchObject({ partial: true, stopReason: 'target-crashed' })
    // 4096 stores into data[] plus fill's return (the ret reads the return address).
    expect(s.events).toBe(4097)
    expect(s.points.find((p) => p.accesses === 4096)?.id).toMatch(/^data_Write_\d+@fill\+0x[0-9a-f]+$/)
  })

  it('a binary without debug information still traces and says how to get lines', () => {
    const source = example('conflict').replace('/build/conflict', '/conflict.c')
    const program = compile(source, join(dir, 'nodebug'), ['-O1'])
    const session = join(dir, 'nodebug.stride')
    const r = stride(['trace', '--launch', program, '--functions', 'sumfunc', '--out', session], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/Rebuild it with -g/)
    const s = info(session)
    expect(s.hasDebugInfo).toBe(false)
    expect(s.events).toBe(3 * 8192 + 1)
    expect(s.points.every((p) => p.file === null && p.function === 'sumfunc')).toBe(true)
  })

  it('export writes the trace as 24-byte records in execution order', () => {
    const session = join(dir, 'conflict-fn.stride')
    strideOk(['trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--out', session], env)
    const file = join(dir, 'conflict.raw')
    strideOk(['export', session, '--format', 'raw', '--out', file], env)
    const s = info(session)
    expect(statSync(file).size).toBe(s.events * 24)
    const raw = readFileSync(file)
    // The loop reads S1[i], S2[i], S3[i]: three reads of 8 bytes, addresses advancing by 8.
    const rec = (i: number) => ({ pc: raw.readBigUInt64LE(i * 24), addr: raw.readBigUInt64LE(i * 24 + 8), size: raw.readUInt32LE(i * 24 + 16), kind: raw.readUInt32LE(i * 24 + 20) })
    expect([rec(0), rec(1), rec(2)].map((r) => [r.size, r.kind])).toEqual([[8, 0], [8, 0], [8, 0]])
    expect(rec(3).addr - rec(0).addr).toBe(8n)
    expect(rec(3).pc).toBe(rec(0).pc)
  })

  it('--cache simulates the trace right after it, as stride simulate would, and stores the run', () => {
    const session = join(dir, 'conflict-cache.stride')
    // Cold (--no-context): a later simulate replays the function's accesses alone, as this first run then does.
    const out = strideOk(['trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--no-context', '--out', session, '--cache', 'L1:32K:8:64', '--cachegrind-compatible'], env)
    expect(out).toMatch(/^24577 events, .* -> .*conflict-cache\.stride$/m)
    expect(out).toMatch(/^run 1: L1 32768B 8-way 64B lines \(Cachegrind-compatible\) \(cold, function-only\)$/m)
    expect(out).toMatch(/conflict\.c:30 +24576 +0 +3072 +0$/m)
    // The same hierarchy simulated afterwards: the same run, row for row.
    strideOk(['simulate', session, '--cache', 'L1:32K:8:64', '--cachegrind-compatible'], env)
    const report = (run: number) => {
      const r = JSON.parse(strideOk(['report', session, '--run', String(run), '--by', 'reference', '--json'], env)) as Record<string, unknown>
      delete r.run
      return r
    }
    expect(report(1)).toEqual(report(2))
    // Bad caches are refused before the program runs: no session is written.
    const refused = join(dir, 'refused.stride')
    expectCleanError(stride(['trace', '--launch', example('conflict'), '--out', refused, '--cache', 'L1:48K:8:64'], env), /^stride trace: .*number of sets .* must be a power of two/)
    expectCleanError(stride(['trace', '--launch', example('conflict'), '--out', refused, '--tlb', 'DTLB:64:4:4K'], env), /--tlb and --cachegrind-compatible go with --cache levels/)
    expect(existsSync(refused)).toBe(false)
  })

  it('--cache on a whole program with heap arrays, globals and libc: the run stored with the trace is the one simulate stores, table by table', () => {
    // Outside-style: -O2, PIE, heap and global data, a struct array, libc's own accesses (names
    // fold to "unknown" and libc's), an L2 and a TLB: the timeline folds many data structures.
    const source = join(dir, 'first-sim.c')
    writeFileSync(
      source,
      `#include <stdlib.h>
#include <stdio.h>
struct particle { double x, v; int id; };
double table[4096];
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  struct particle *p = calloc(n, sizeof *p);
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 2 * i; p[i].id = i; }
  double s = 0;
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < n; i++) { p[i].x += a[i] * b[(i * 7) % n]; s += table[(i * 31) & 4095] + p[i].x; }
  printf("%f\\n", s);
  return 0;
}
`
    )
    const program = compile(source, join(dir, 'first-sim'), ['-O2', '-g'])
    const session = join(dir, 'first-sim.stride')
    const hierarchy = ['--cache', 'L1:32K:8:64', '--cache', 'L2:256K:8:64', '--tlb', 'DTLB:64:4:4K']
    // Simulated while the program ran (no note that it ran again after the trace, and the
    // session does not say it was simulated after it), then by simulate.
    const traced = stride(['trace', '--launch', program, '--out', session, ...hierarchy, '--', '20000'], env)
    expect(traced.status, traced.stderr).toBe(0)
    expect(traced.stderr).not.toMatch(/runs again/)
    expect(traced.stdout).toMatch(/^run 1: L1 32768B 8-way 64B lines, L2 262144B 8-way 64B lines, DTLB/m)
    // What it printed (laid out by the trace's worker from the report it built) is the run's
    // report read afresh from the file; the lines it leaves out are listed by stride report.
    const printed = traced.stdout.slice(traced.stdout.indexOf('run 1: '))
    expect(printed).toMatch(new RegExp(`\\.\\.\\. and \\d+ more lines, each under 0\\.1% of every column \\(stride report ${session} --all lists them\\)\\.\\n?$`))
    expect(printed.replace(`stride report ${session} --all`, '--all')).toBe(strideOk(['report', session, '--run', '1', '--by', 'line'], env))
    expect(strideOk(['report', session, '--run', '1', '--by', 'line', '--all'], env).split('\n').length).toBeGreaterThan(printed.split('\n').length + 1000)
    strideOk(['simulate', session, ...hierarchy], env)
    const db = new Database(session, { readonly: true })
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'run%'").pluck().all() as string[]).filter((t) => t !== 'runs')
      expect(tables).toEqual(expect.arrayContaining(['run_points', 'run_point_metrics', 'run_evictors', 'run_timeline', 'run_rollup']))
      for (const table of ['runs', ...tables]) {
        const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name).filter((c) => c !== 'run' && c !== 'created_at')
        // In stored order: the first run's rows were written as simulate writes them.
        const rows = (run: number) => db.prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE run = ? ORDER BY rowid`).all(run)
        expect(rows(1).length, table).toBeGreaterThan(0)
        expect(rows(1), table).toEqual(rows(2))
      }
      const names = db.prepare('SELECT DISTINCT variable FROM run_timeline WHERE run = 1').pluck().all()
      expect(names.length).toBeGreaterThanOrEqual(3)
      expect(db.prepare("SELECT value FROM meta WHERE key = 'firstSimulationAfterTrace'").pluck().get()).toBeUndefined()
    } finally {
      db.close()
    }
  })

  it('bad input gets one clear line naming the problem and the fix', () => {
    expectCleanError(stride(['trace', '--launch', join(dir, 'no-such-program'), '--out', join(dir, 'x.stride')], env), /does not exist; give the path of an executable/)
    expectCleanError(stride(['trace', '--launch', example('conflict'), '--functions', 'nosuchfn', '--out', join(dir, 'x.stride')], env), /"nosuchfn" not found in .*pick from its function list/)
    const notExec = join(dir, 'plain.txt')
    writeFileSync(notExec, 'hello')
    expectCleanError(stride(['trace', '--launch', notExec, '--out', join(dir, 'x.stride')], env), /is not executable; run chmod \+x/)
    chmodSync(notExec, 0o755)
    expectCleanError(stride(['trace', '--launch', notExec, '--out', join(dir, 'x.stride')], env), /is not an ELF executable/)
    expectCleanError(stride(['trace', '--launch', example('conflict')], env), /--out SESSION.stride/)
    expectCleanError(stride(['trace', '--attach', '4194000', '--functions', 'f', '--out', join(dir, 'x.stride')], env), /Process 4194000 is gone .*pick a running process/)
    const garbage = join(dir, 'garbage.stride')
    writeFileSync(garbage, 'this is not a database, just text that is long enough to be read as a header'.repeat(20))
    expectCleanError(stride(['info', garbage], env), /not a Stride session/)
    expectCleanError(stride(['simulate', join(dir, 'missing.stride'), '--cache', 'L1:32K:8:64'], env), /does not exist/)
    expectCleanError(stride(['simulate', garbage, '--cache', 'L1:32K:8:63'], env), /line size must be a power of two/)
    expectCleanError(stride(['simulate', garbage, '--cache', 'L1:48K:8:64'], env), /number of sets .* must be a power of two/)
    expectCleanError(stride(['report', join(dir, 'conflict-fn.stride'), '--by', 'planet'], env), /--by must be one of line, reference, variable, function/)
  })
})

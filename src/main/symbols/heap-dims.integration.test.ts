/**
 * Heap arrays get dimensions, end to end through the built CLI on programs built -g -O2 PIE
 * (fixtures/): PolyBench's 2mm, whose arrays are `double (*A)[NI][NK]` from posix_memalign,
 * gets each array's [rows][columns] from the pointer's debug type, and a slice of A's columns
 * counts what an independent replay of the trace counts at those addresses; padding a heap
 * matrix's rows moves its accesses as the hand-padded build does; a flat `double *` walked by
 * columns gets rows from its stride, marked as inferred.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { QuerySlice, VariableStats } from '../../shared/domain'
import { Hierarchy, STAT_FIELDS, STAT_READ_MISSES, STAT_READS, STAT_WRITE_MISSES } from '../simulate/hierarchy'
import { iterateChunks, openSessionDb, readPointKinds, readRuns } from '../store/session-reader'
import { readVariables } from '../store/variables'
import { fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('heap-dims')
const env = fixedEnv(dir)

function build(name: string, source: string, ...flags: string[]): string {
  const out = join(dir, name)
  const r = spawnSync('cc', ['-g', '-O2', '-fPIE', '-pie', ...flags, '-o', out, join(__dirname, 'fixtures', source)], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`cc failed for ${name}: ${r.stderr}`)
  return out
}
function trace(program: string, functions: string): string {
  const session = `${program}.stride`
  strideOk(['trace', '--launch', program, '--functions', functions, '--out', session], env)
  return session
}
/** Simulates a run and returns its number. */
const simulate = (session: string, ...args: string[]) => (JSON.parse(strideOk(['simulate', session, '--no-baseline', '--json', ...args], env)) as { run: number }).run
const variables = (session: string, run: number) => (JSON.parse(strideOk(['report', session, '--run', String(run), '--by', 'variable', '--json'], env)) as { variables: VariableStats[] }).variables
const l1Misses = (v: VariableStats) => v.levels.L1!.readMisses + v.levels.L1!.writeMisses

describe("PolyBench 2mm's heap arrays", () => {
  let session = ''
  let run = 0
  beforeAll(() => {
    session = trace(build('2mm', 'polybench-2mm.c'), 'kernel_2mm')
    // A small L1, so the column walks of B and C miss and A's columns differ from its rows.
    run = simulate(session, '--cache', 'L1:4K:2:64')
  })

  it('take [rows][columns] from the pointer each is assigned to, double (*A)[NI][NK]', () => {
    const shapes = Object.fromEntries(variables(session, run).filter((v) => v.kind === 'heap').map((v) => [v.variable, [v.type, v.dims, v.dimsFrom]]))
    expect(shapes).toEqual({
      tmp: ['double [40][50]', [40, 50], 'type'],
      A: ['double [40][70]', [40, 70], 'type'],
      B: ['double [70][50]', [70, 50], 'type'],
      C: ['double [50][80]', [50, 80], 'type'],
      D: ['double [40][80]', [40, 80], 'type']
    })
  })

  it('A[*,0:9] gives the loads and misses of those columns: what a replay of the trace counts at their addresses', () => {
    const slice = JSON.parse(strideOk(['query', session, '[{A[*,0:9],A[*,10:69],A},{kernel_2mm},{loads,misses}]', '--run', String(run), '--json'], env)) as QuerySlice
    expect(slice.resimulated).toBe(true)
    const [columns, rest, whole] = slice.cells.map((row) => row[0]!)

    // The replay: the reference model (not the native simulator the query runs) over the stored
    // trace, each point split in two by whether the access's address is in A's columns 0..9.
    const db = openSessionDb(session, { readonly: true })
    try {
      const a = readVariables(db).find((v) => v.name === 'A')!
      const start = Number(a.start)
      const config = readRuns(db).find((r) => r.run === run)!.config
      const kinds = readPointKinds(db)
      const n = kinds.length
      const split = new Uint8Array(2 * n)
      split.set(kinds)
      split.set(kinds, n)
      const model = new Hierarchy(config, split)
      for (const chunk of iterateChunks(db, n)) {
        const points = Uint32Array.from(chunk.points)
        for (let i = 0; i < chunk.count; i++) {
          const offset = chunk.addresses[i]! - start
          if (offset >= 0 && offset < a.size! && Math.floor(offset / 8) % 70 < 10) points[i] = points[i]! + n
        }
        model.run({ count: chunk.count, points, addresses: chunk.addresses, sizes: chunk.sizes })
      }
      model.finish()
      const stats = model.pointResults()
      let loads = 0
      let misses = 0
      for (let p = n; p < 2 * n; p++) {
        loads += stats[p * STAT_FIELDS + STAT_READS]!
        misses += stats[p * STAT_FIELDS + STAT_READ_MISSES]! + stats[p * STAT_FIELDS + STAT_WRITE_MISSES]!
      }
      // kernel_2mm reads A[i][k] once per (i, j, k): NJ = 50 times each of A's 40 x 10 elements.
      expect(loads).toBe(40 * 10 * 50)
      expect(columns).toEqual([loads, misses])
      expect(misses).toBeGreaterThan(0)
    } finally {
      db.close()
    }
    expect(rest![0]! + columns![0]!).toBe(whole![0])
    expect(rest![1]! + columns![1]!).toBe(whole![1])
  })
})

describe('a heap matrix of 4 KiB rows walked by columns', () => {
  let session = ''
  let twin = ''
  beforeAll(() => {
    session = trace(build('colwalk', 'heap-colwalk.c'), 'colsum,colsum_flat')
    twin = trace(build('colwalk-padded', 'heap-colwalk.c', '-DPAD=8'), 'colsum,colsum_flat')
  })

  it('padding its rows by a line (a what-if on the heap array) misses as the hand-padded build does', () => {
    const m = (s: string, ...pads: string[]) => variables(s, simulate(s, '--cache', 'L1:32K:8:64', ...pads)).find((v) => v.variable === 'm')!
    const traced = m(session)
    const padded = m(session, '--pad-dim', 'm=1:520')
    const real = m(twin)
    expect(traced.dims).toEqual([64, 512])
    expect(real.dims).toEqual([64, 520])
    // 64 rows 4 KiB apart share one set of the 8-way L1: every access misses as traced.
    expect(l1Misses(traced)).toBe(traced.reads)
    expect(l1Misses(real)).toBeLessThan(traced.reads / 4)
    expect(Math.abs(l1Misses(padded) - l1Misses(real))).toBeLessThanOrEqual(l1Misses(real) / 1000)
  })

  it('a flat double * indexed flat[i * COLS + j] gets its rows from the stride of the column walk, marked inferred', () => {
    const db = openSessionDb(session, { readonly: true })
    const flat = readVariables(db).find((v) => v.name === 'flat')!
    db.close()
    expect(flat).toMatchObject({ kind: 'heap', type: 'double [32768]', elementSize: 8, dims: [64, 512], dimsFrom: 'strides' })
    // And works as dimensions do: a slice of its first column, and padding its rows.
    const run = simulate(session, '--cache', 'L1:32K:8:64')
    const slice = JSON.parse(strideOk(['query', session, '[{flat[*,0],flat},{colsum_flat},{loads}]', '--run', String(run), '--json'], env)) as QuerySlice
    expect(slice.cells.map((row) => row[0]![0])).toEqual([64, 64 * 512])
    const padded = variables(session, simulate(session, '--cache', 'L1:32K:8:64', '--pad-dim', 'flat=1:520')).find((v) => v.variable === 'flat')!
    expect(l1Misses(padded)).toBeLessThan(flat.reads / 4)
  })
})

/**
 * Issue "source and data correlation", through the real CLI and Valgrind: METRIC's reference
 * names and SourceRefs, heap blocks named by allocation context (with reuse after free), and
 * stack locals vs. globals reached through a pointer parameter.
 */
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('correlate')
const env = fixedEnv(dir)

interface PointRow {
  ref_id: string
  line: number
  accesses: number
  variable: string | null
  source_expr: string | null
  disasm: string | null
}

function trace(program: string, functions: string, name: string): Database.Database {
  const session = join(dir, `${name}.stride`)
  strideOk(['trace', '--launch', program, '--functions', functions, '--out', session], env)
  return new Database(session, { readonly: true })
}

function points(db: Database.Database): PointRow[] {
  return db.prepare('SELECT ref_id, line, accesses, variable, source_expr, disasm FROM points ORDER BY pc, kind').all() as PointRow[]
}

/** `A_Read_30@do_mult+0x1c` -> `A_Read`, with its SourceRef, for the points that carry the loop. */
function refs(rows: PointRow[], minAccesses: number): string[] {
  return rows.filter((r) => r.accesses >= minAccesses).map((r) => `${r.ref_id.replace(/(_\d+)?@[^@]*$/, '')} ${r.source_expr}`)
}

function build(fixture: string): string {
  const out = join(dir, fixture)
  const r = spawnSync('cc', ['-g', '-O1', '-o', out, join(__dirname, 'fixtures', `${fixture}.c`)], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return out
}

describe('correlation: METRIC reference names and source expressions', () => {
  it('10.2: A_Read and B_Read with A[i][j] and B[j][i]', () => {
    const rows = points(trace(example('mult'), 'do_mult', 'mult'))
    expect(refs(rows, 1_000_000).sort()).toEqual(['A_Read A[i][j]', 'A_Write A[i][j]', 'B_Read B[j][i]'])
    expect(rows.every((r) => r.disasm)).toBe(true)
  })

  it('10.1: C_Read and D_Read with C[ind[j]] and D[ind[j]], ind_Read with ind[j]', () => {
    const rows = points(trace(example('reuse'), 'do_mult', 'reuse'))
    expect(refs(rows, 15_000).sort()).toEqual(['C_Read C[ind[j]]', 'C_Write C[ind[j]]', 'D_Read D[ind[j]]', 'ind_Read ind[j]'])
  })

  it('10.3: accesses through parameters are named by the global they reach', () => {
    const rows = points(trace(example('conflict'), 'sumfunc', 'conflict'))
    // The paper's A_Read_0, B_Read_1, C_Read_2 (numbered as instrumented): here line 30, in address order.
    expect(rows.filter((r) => r.accesses === 8192).map((r) => `${r.ref_id.replace(/@sumfunc\+0x[0-9a-f]+$/, '')} ${r.source_expr}`)).toEqual(['A_Read_30 S1[i]', 'B_Read_30 S2[i]', 'C_Read_30 S3[i]'])
  })
})

describe('correlation: heap and stack', () => {
  it('names heap blocks by allocation context, and reused memory by its new block', () => {
    const program = build('heap')
    const kernels = trace(program, 'walk,step', 'heap-kernels')
    const total = (kernels.prepare('SELECT SUM(accesses) AS n FROM points').get() as { n: number }).n
    const named = (kernels.prepare("SELECT SUM(pv.accesses) AS n FROM point_variables pv JOIN variables v ON v.id = pv.variable WHERE v.kind = 'heap'").get() as { n: number }).n
    expect(named / total).toBeGreaterThanOrEqual(0.95)
    const byName = Object.fromEntries(
      (kernels.prepare("SELECT name, reads, writes, alloc_site FROM variables WHERE kind = 'heap' AND reads + writes > 0").all() as Array<{ name: string; reads: number; writes: number; alloc_site: string }>).map((v) => [v.name, v])
    )
    expect(byName.node).toMatchObject({ reads: 4000 }) // p->value and p->next over 2000 nodes
    expect(byName.particles).toMatchObject({ reads: 4000, writes: 2000 })
    expect(byName.node!.alloc_site).toMatch(/heap\.c:\d+$/)

    // In main, `samples` is malloc'd where `particles` was freed: its accesses are its own.
    const main = trace(program, 'main', 'heap-main')
    const samples = main.prepare("SELECT kind, reads, writes, start FROM variables WHERE name = 'samples'").get() as { kind: string; reads: number; writes: number; start: number }
    const particles = main.prepare("SELECT start, reads, writes FROM variables WHERE name = 'particles'").get() as { start: number; reads: number; writes: number }
    expect(samples).toMatchObject({ kind: 'heap', reads: 1000, writes: 1000 })
    expect(samples.start).toBe(particles.start)
    expect(particles.writes).toBe(2000) // vx, vy in main; nothing of samples leaked into it
    const line68 = points(main).filter((r) => r.source_expr === 'samples[i]')
    expect(line68.map((r) => r.variable)).toEqual(['samples', 'samples'])
  })

  it('names a local array, and accesses through a pointer parameter by the caller\'s global', () => {
    const db = trace(build('locals'), 'scale', 'locals')
    const rows = points(db).filter((r) => r.accesses >= 64)
    expect(rows.map((r) => `${r.ref_id.replace(/(_\d+)?@[^@]*$/, '')} ${r.source_expr}`)).toEqual(['G_Read p[i]', 'local_Write local[i]', 'local_Read local[i % 64]', 'G_Read p[i]'])
    expect(db.prepare("SELECT kind, size, dims FROM variables WHERE name = 'local'").get()).toEqual({ kind: 'stack', size: 512, dims: '[64]' })
    expect(db.prepare("SELECT kind, dims FROM variables WHERE name = 'G'").get()).toEqual({ kind: 'global', dims: '[256]' })
  })
})

describe('correlation: reports by variable', () => {
  it('stride report --by variable --json lists kinds, reads, writes and per-level misses', () => {
    const session = join(dir, 'heap-main.stride') // traced above, with stack, heap and unknown accesses
    strideOk(['simulate', session, '--cache', 'L1:32K:8:64'], env)
    const out = JSON.parse(strideOk(['report', session, '--by', 'variable', '--json'], env)) as {
      variables: Array<{ variable: string; kind: string; reads: number; writes: number; levels: Record<string, { readMisses: number; writeMisses: number }> }>
    }
    const byName = new Map(out.variables.map((v) => [v.variable, v]))
    expect(byName.get('node')).toMatchObject({ kind: 'heap' })
    expect(byName.get('samples')).toMatchObject({ kind: 'heap', reads: 1000, writes: 1000 })
    expect(byName.get('unknown')).toMatchObject({ kind: 'unknown' })
    for (const v of out.variables) expect(typeof v.levels.L1?.readMisses).toBe('number')
    const locals = join(dir, 'locals.stride')
    strideOk(['simulate', locals, '--cache', 'L1:32K:8:64'], env)
    const kinds = Object.fromEntries((JSON.parse(strideOk(['report', locals, '--by', 'variable', '--json'], env)) as typeof out).variables.map((v) => [v.variable, v.kind]))
    expect(kinds).toMatchObject({ local: 'stack', G: 'global' })
    const refs = (JSON.parse(strideOk(['report', locals, '--by', 'reference', '--json'], env)) as { references: Array<{ variable: string | null; sourceExpr?: string }> }).references
    // References are listed by id (local_Read_… before local_Write_…).
    expect(refs.filter((r) => r.variable === 'local').map((r) => r.sourceExpr)).toEqual(['local[i % 64]', 'local[i]'])
  })
})

describe('correlation: loop nests', () => {
  it('finds do_mult\'s two nested loops from back edges and rolls accesses up to both', () => {
    const session = join(dir, 'mult.stride') // traced above with --functions do_mult
    strideOk(['simulate', session, '--cache', 'L1:32K:2:128'], env)
    const out = JSON.parse(strideOk(['report', session, '--by', 'loop', '--json'], env)) as {
      loops: Array<{ name: string; function: string; depth: number; parent: number | null; line: number | null; reads: number; writes: number; levels: Record<string, { readMisses: number }> }>
    }
    const loops = out.loops.filter((l) => l.function === 'do_mult')
    expect(loops.map((l) => l.depth).sort()).toEqual([0, 1])
    const [outer, inner] = [loops.find((l) => l.depth === 0)!, loops.find((l) => l.depth === 1)!]
    expect(inner.reads).toBeGreaterThanOrEqual(2_000_000) // A[i][j] and B[j][i]
    expect(inner.writes).toBeGreaterThanOrEqual(1_000_000)
    expect(outer.reads).toBeGreaterThanOrEqual(inner.reads) // the outer loop includes the inner one
    expect(inner.levels.L1!.readMisses).toBeGreaterThanOrEqual(999_000) // B's column walk
    expect(inner.name).toMatch(/^do_mult loop@mult\.c:\d+$/)
  })
})

describe('heap blocks from every allocator, named after the program (outside-style, -O2 PIE)', () => {
  it('PolyBench-style arrays from posix_memalign/aligned_alloc through helpers are named A, B, tmp, C', () => {
    const program = join(dir, 'polyalloc')
    const cc = spawnSync('cc', ['-g', '-O2', '-fPIE', '-pie', '-o', program, join(__dirname, 'fixtures', 'outside', 'polyalloc.c')], { encoding: 'utf8' })
    expect(cc.status, cc.stderr).toBe(0)
    const db = trace(program, 'kernel_2mm', 'polyalloc')
    const rows = db.prepare('SELECT variable, SUM(accesses) AS n FROM points GROUP BY variable').all() as Array<{ variable: string | null; n: number }>
    const total = rows.reduce((a, r) => a + r.n, 0)
    const named = rows.filter((r) => r.variable && ['A', 'B', 'tmp', 'C'].includes(r.variable)).reduce((a, r) => a + r.n, 0)
    expect(rows.map((r) => r.variable).sort()).toEqual(expect.arrayContaining(['A', 'B', 'C', 'tmp']))
    expect(named / total).toBeGreaterThanOrEqual(0.95)
  })

  it("a block a helper returns is named by its caller's line: malloc's result, a member string returned by value", () => {
    const program = join(dir, 'returned')
    const cc = spawnSync('c++', ['-g', '-O2', '-fPIE', '-pie', '-o', program, join(__dirname, 'fixtures', 'outside', 'returned.cpp')], { encoding: 'utf8' })
    expect(cc.status, cc.stderr).toBe(0)
    const db = trace(program, 'sum,count', 'returned')
    const names = (db.prepare('SELECT DISTINCT variable FROM points WHERE accesses > 1000').all() as Array<{ variable: string | null }>).map((r) => r.variable)
    // The member the string was copied from is named after the same line (the helper returns it): output#2.
    expect(names.map((n) => n?.replace(/#\d+$/, '')).sort()).toEqual(['output', 'xs', 'ys'])
  })
})

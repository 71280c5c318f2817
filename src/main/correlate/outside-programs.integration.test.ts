/**
 * Data attribution on programs Stride's authors did not shape (fixtures/README.md),
 * built here -O2 PIE, traced through the real CLI and Valgrind: every allocator is seen, blocks
 * are named after the program's own allocating frame, and per-point attribution adds up.
 */
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { parseCachegrindOut } from '../simulate/oracle/cachegrind-out'
import { fixedEnv, run, stride, strideOk, tempDir } from '../testing/cli-runner'
import { buildIdDebugPath } from '../symbols/elf-parse'
import { createStrideService } from '../services/stride-service'

const dir = tempDir('outside')
const env = fixedEnv(dir)
const fixture = (name: string) => join(__dirname, 'fixtures', 'outside', name)

function compile(compiler: string, out: string, args: string[]): string {
  const path = join(dir, out)
  const r = spawnSync(compiler, ['-g', '-O2', '-o', path, ...args], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return path
}

function trace(program: string, functions: string): Database.Database {
  const session = join(dir, `${program.split('/').pop()}-${functions.replace(/[^\w.]/g, '_')}.stride`)
  strideOk(['trace', '--launch', program, '--functions', functions, '--out', session], env)
  return new Database(session, { readonly: true })
}

interface Named {
  name: string
  kind: string
  accesses: number
}

/** Accesses per variable, from the per-point histograms (each access to the object it touched). */
function byVariable(db: Database.Database): Named[] {
  return db
    .prepare('SELECT v.name AS name, v.kind AS kind, SUM(pv.accesses) AS accesses FROM point_variables pv JOIN variables v ON v.id = pv.variable GROUP BY v.id ORDER BY accesses DESC')
    .all() as Named[]
}

/** Share of the traced accesses named after the program's own data (not `unknown`). */
function namedShare(db: Database.Database): number {
  const rows = byVariable(db)
  const total = rows.reduce((s, r) => s + r.accesses, 0)
  return rows.filter((r) => r.kind !== 'unknown').reduce((s, r) => s + r.accesses, 0) / total
}

/** The histograms add up to every point's own access count (the per-access truth). */
function expectSumsMatch(db: Database.Database): void {
  const mismatched = db
    .prepare('SELECT p.idx FROM points p LEFT JOIN (SELECT point, SUM(accesses) AS n FROM point_variables GROUP BY point) h ON h.point = p.idx WHERE p.accesses > 0 AND COALESCE(h.n, 0) != p.accesses')
    .all()
  expect(mismatched).toEqual([])
}

describe('outside programs: every allocator, named after the program\'s own frame', () => {
  it('PolyBench-style gemm: posix_memalign and aligned_alloc through helpers name A, B, C', () => {
    const db = trace(compile('cc', 'polybench-aligned', ['-fPIE', '-pie', fixture('polybench-aligned.c')]), 'kernel_gemm')
    const rows = byVariable(db)
    expect(namedShare(db)).toBeGreaterThanOrEqual(0.95)
    const heap = Object.fromEntries(rows.filter((r) => r.kind === 'heap').map((r) => [r.name, r.accesses]))
    // gemm at N=64: C read+written N*N*(1+N) times... each access to its own array.
    expect(heap).toEqual({ A: 64 * 64 * 64, B: 64 * 64 * 64, C: 2 * 64 * 64 + 2 * 64 * 64 * 64 })
    const sites = db.prepare("SELECT name, alloc_site FROM variables WHERE kind = 'heap' AND reads + writes > 0 ORDER BY name").all() as Array<{ name: string; alloc_site: string }>
    expect(sites.map((s) => s.alloc_site.replace(/^.*\//, ''))).toEqual(['polybench-aligned.c:29', 'polybench-aligned.c:30', 'polybench-aligned.c:31'])
    expectSumsMatch(db)
  })

  it('PolyBench/C 4.2.1 style: arrays declared by a macro through polybench_alloc_data, several declarators allocated on one line', () => {
    const db = trace(compile('cc', 'polybench-macros', ['-fPIE', '-pie', fixture('polybench-macros.c')]), 'kernel_gemm,kernel_transpose')
    expect(namedShare(db)).toBeGreaterThanOrEqual(0.95)
    const heap = Object.fromEntries(byVariable(db).filter((r) => r.kind === 'heap').map((r) => [r.name, r.accesses]))
    const [ni, nj, nk] = [48, 56, 64]
    expect(heap).toEqual({ C: 2 * ni * nj + 2 * ni * nk * nj, A: ni * nk * nj, B: ni * nk * nj, In: nk * nk, Out: nk * nk })
    const sites = db.prepare("SELECT name, alloc_site FROM variables WHERE kind = 'heap' AND reads + writes > 0 ORDER BY name").all() as Array<{ name: string; alloc_site: string }>
    expect(Object.fromEntries(sites.map((s) => [s.name, s.alloc_site.replace(/^.*\//, '')]))).toEqual({
      A: 'polybench-macros.c:58',
      B: 'polybench-macros.c:59',
      C: 'polybench-macros.c:57',
      In: 'polybench-macros.c:62',
      Out: 'polybench-macros.c:62'
    })
    // Each block's dimensions from its own pointer: `double (*A)[NI][NK]` (one pointee), and
    // `double (*In)[NK]` holding NK rows, two declarators on one line.
    const shapes = db.prepare("SELECT name, type, dims, dims_from FROM variables WHERE kind = 'heap' AND reads + writes > 0 ORDER BY name").all() as Array<{ name: string; type: string; dims: string; dims_from: string }>
    expect(Object.fromEntries(shapes.map((s) => [s.name, `${s.type} ${s.dims} ${s.dims_from}`]))).toEqual({
      A: 'double [48][64] [48,64] type',
      B: 'double [64][56] [64,56] type',
      C: 'double [48][56] [48,56] type',
      In: 'double [64][64] [64,64] type',
      Out: 'double [64][64] [64,64] type'
    })
    // Each reference shows its own expression; the compiler's own accesses are labelled as such.
    const refs = db.prepare('SELECT variable, source_expr AS expr, disasm FROM points WHERE accesses > 0').all() as Array<{ variable: string | null; expr: string; disasm: string }>
    const exprsOf = (v: string) => [...new Set(refs.filter((r) => r.variable === v).map((r) => r.expr))].sort()
    expect(exprsOf('A')).toEqual(['A[i][k]'])
    expect(exprsOf('B')).toEqual(['B[k][j]'])
    expect(exprsOf('C')).toEqual(['C[i][j]'])
    expect(exprsOf('In')).toEqual(['src[i][j]'])
    expect(exprsOf('Out')).toEqual(['dst[j][i]'])
    for (const r of refs.filter((r) => /^(ret|push|pop)\b/.test(r.disasm))) expect(r.expr, r.disasm).toMatch(/^\((return address|saved register)\)$/)
    expectSumsMatch(db)
  })

  it('C++: vector, unordered_map and new are named after main\'s lines, not libstdc++', () => {
    const db = trace(compile('g++', 'cxx-containers', ['-fPIE', '-pie', fixture('cxx-containers.cpp')]), 'crunch') // demangled name
    expect(namedShare(db)).toBeGreaterThanOrEqual(0.95)
    const heap = byVariable(db).filter((r) => r.kind === 'heap')
    expect(heap.find((r) => r.name === 'values')?.accesses).toBe(2 * 4096)
    expect(heap.find((r) => r.name === 'list')?.accesses).toBe(2 * 200)
    expect(heap.filter((r) => /^counts/.test(r.name)).reduce((s, r) => s + r.accesses, 0)).toBeGreaterThan(512)
    expect(heap.some((r) => /libstdc|libc\.so/.test(r.name))).toBe(false)
    expectSumsMatch(db)
  })

  it('two threads: each thread\'s array gets its own accesses', () => {
    const db = trace(compile('cc', 'two-threads', ['-fPIE', '-pie', '-pthread', fixture('two-threads.c')]), 'sweep')
    expect(namedShare(db)).toBeGreaterThanOrEqual(0.95)
    const heap = Object.fromEntries(byVariable(db).filter((r) => r.kind === 'heap').map((r) => [r.name, r.accesses]))
    expect(heap).toEqual({ a: 4 * 20000, b: 4 * 20000 })
    expectSumsMatch(db)
    // The same split where roll-ups are shown: a slice by data structure, before and after the
    // run's roll-up exists, and report --by variable (one reference, sweep's load, on both arrays).
    const session = db.name
    db.close()
    strideOk(['simulate', session, '--cache', 'L1:32K:8:64'], env)
    const slice = JSON.parse(strideOk(['query', session, '[{a,b},{sweep},{accesses}]', '--json'], env)) as { data: string[]; cells: number[][][] }
    const accesses = Object.fromEntries(slice.data.map((name, i) => [name, slice.cells[i]![0]![0]]))
    expect(accesses).toEqual({ a: 4 * 20000, b: 4 * 20000 })
    const report = JSON.parse(strideOk(['report', session, '--by', 'variable', '--json'], env)) as { variables: Array<{ variable: string; reads: number; writes: number }> }
    for (const name of ['a', 'b']) {
      const v = report.variables.find((r) => r.variable === name)!
      expect(v.reads + v.writes).toBe(4 * 20000)
    }
  })

  it("two threads in one function: each thread's own local array is named, on its own frame stack", () => {
    const db = trace(compile('cc', 'thread-locals', ['-fPIE', '-pie', '-pthread', fixture('thread-locals.c')]), 'work')
    // 2 threads x 20 calls x 2 sweeps x 4096 loads of `local`; one frame stack for both threads
    // lost a thread's frame whenever the other returned or called again.
    const local = byVariable(db).find((r) => r.name === 'local')
    expect(local).toMatchObject({ kind: 'stack', accesses: 2 * 20 * 2 * 4096 })
    expect(namedShare(db)).toBeGreaterThanOrEqual(0.95)
    expectSumsMatch(db)
  })

  it('shared library: the program\'s block passed to it is named, also when the library\'s own function is traced', () => {
    const lib = compile('cc', 'libfix.so', ['-fPIC', '-shared', fixture('libfix.c')])
    const program = compile('cc', 'uses-lib', ['-fPIE', '-pie', fixture('uses-lib.c'), lib, `-Wl,-rpath,${dir}`])
    const db = trace(program, 'compute')
    expect(namedShare(db)).toBeGreaterThanOrEqual(0.95)
    expect(byVariable(db).find((r) => r.name === 'h')).toMatchObject({ kind: 'heap', accesses: 8192 })
    expectSumsMatch(db)
    // The library's own function, traced by Stride's Valgrind tool: it reads the program's
    // block h and the library's own global table, both named.
    const inLib = trace(program, 'libfix.so:lib_sum')
    expect(byVariable(inLib).find((r) => r.name === 'h')).toMatchObject({ kind: 'heap', accesses: 8192 })
    expect(byVariable(inLib).find((r) => r.name === 'lib_table')).toMatchObject({ kind: 'global', accesses: 8192 })
    expect(namedShare(inLib)).toBeGreaterThanOrEqual(0.95)
    const fns = inLib.prepare('SELECT DISTINCT function, file FROM points WHERE accesses > 0').all() as Array<{ function: string; file: string }>
    expect(fns.map((f) => f.function)).toEqual(['lib_sum'])
    expect(fns[0]!.file).toMatch(/libfix\.c$/)
    expectSumsMatch(inLib)
    const r = stride(['trace', '--launch', program, '--functions', 'libnope.so:f', '--out', join(dir, 'lib.stride')], env)
    expect(r.status).not.toBe(0)
    expect(r.stderr.trim().split('\n')).toHaveLength(1) // one line, no stack trace
    expect(r.stderr).toMatch(/does not load libnope\.so \(ldd lists .*libfix\.so/)
  })
})

describe('outside programs: lines as Valgrind maps them', () => {
  it('C++ -O2: per-line reads and writes equal Cachegrind on the program\'s and the library headers\' lines', () => {
    const program = compile('g++', 'cxx-lines', ['-fPIE', '-pie', fixture('cxx-containers.cpp')])
    const session = join(dir, 'cxx-lines.stride')
    strideOk(['trace', '--launch', program, '--no-heap', '--out', session], env) // as Cachegrind runs it
    const report = JSON.parse(strideOk(['simulate', session, '--cache', 'L1:32K:8:64', '--cachegrind-compatible', '--json'], env)) as RunReport
    const out = join(dir, 'cxx-lines.cg')
    const cg = run('valgrind', ['--tool=cachegrind', '--cache-sim=yes', '--D1=32768,8,64', `--cachegrind-out-file=${out}`, program], env)
    expect(cg.status, cg.stderr).toBe(0)
    const oracle = parseCachegrindOut(readFileSync(out, 'utf8'))
    // Inlined std:: code has rows in both main's file and the header at one address.
    const mine = (file: string) => file.includes('cxx-containers.cpp') || file.startsWith('/usr/include/c++/')
    const ours = new Map(report.lines.filter((l) => mine(l.file) && l.reads + l.writes > 0).map((l) => [`${l.file}:${l.line}`, { Dr: l.reads, Dw: l.writes }]))
    const theirs = new Map([...oracle.lines].filter(([k, c]) => mine(k) && c.Dr + c.Dw > 0).map(([k, c]) => [k, { Dr: c.Dr, Dw: c.Dw }]))
    expect(theirs.size).toBeGreaterThan(20)
    expect(Object.fromEntries(ours)).toEqual(Object.fromEntries(theirs))
  })

  // Debian's valgrind depends on libc6-dbg, so the detached debug information is normally there.
  const libcDebug = buildIdDebugPath(/Build ID:\s*([0-9a-f]+)/.exec(run('readelf', ['-n', '/usr/lib/x86_64-linux-gnu/libc.so.6'], env).stdout)?.[1] ?? null)
  it.skipIf(!libcDebug || !existsSync(libcDebug))('libc and ld.so lines (detached debug information) equal Cachegrind per line', async () => {
    const program = compile('cc', 'libc-calls', ['-fPIE', '-pie', fixture('libc-calls.c')])
    const session = join(dir, 'libc-calls.stride')
    strideOk(['trace', '--launch', program, '--no-heap', '--out', session], env)
    const report = JSON.parse(strideOk(['simulate', session, '--cache', 'L1:32K:8:64', '--cachegrind-compatible', '--json'], env)) as RunReport
    const out = join(dir, 'libc-calls.cg')
    const cg = run('valgrind', ['--tool=cachegrind', '--cache-sim=yes', '--D1=32768,8,64', `--cachegrind-out-file=${out}`, program], env)
    expect(cg.status, cg.stderr).toBe(0)
    const oracle = parseCachegrindOut(readFileSync(out, 'utf8'))
    // glibc's line tables name its sources relative to its build tree (./string/../sysdeps/...).
    type Counts = { Dr: number; Dw: number; D1mr: number; D1mw: number }
    const glibc = (file: string) => file.startsWith('./')
    const ours = new Map<string, Counts>(report.lines.filter((l) => glibc(l.file) && l.reads + l.writes > 0).map((l) => [`${l.file}:${l.line}`, { Dr: l.reads, Dw: l.writes, D1mr: l.levels.L1!.readMisses, D1mw: l.levels.L1!.writeMisses }]))
    const theirs = new Map<string, Counts>([...oracle.lines].filter(([k, c]) => glibc(k) && c.Dr + c.Dw > 0).map(([k, c]) => [k, { Dr: c.Dr, Dw: c.Dw, D1mr: c.D1mr, D1mw: c.D1mw }]))
    expect(theirs.size).toBeGreaterThan(100)
    // The kernel's own calls (memset, qsort's merge sort, memmove): every line equal.
    const kernel = (k: string) => /^\.\/(string|stdlib)\//.test(k)
    const pick = (m: Map<string, Counts>) => Object.fromEntries([...m].filter(([k]) => kernel(k)))
    expect(Object.keys(pick(theirs)).some((k) => k.includes('msort.c'))).toBe(true)
    expect(pick(ours)).toEqual(pick(theirs))
    // Everywhere in libc and ld.so the totals are equal; a line may differ only by its file
    // (Valgrind 3.19 and llvm-symbolizer read a few DWARF 5 rows of ld.so's start-up code,
    // cpu-features.c:701 vs dl-cacheinfo.h:701, with different file entries).
    const total = (m: Map<string, Counts>) => [...m.values()].reduce((t, c) => ({ Dr: t.Dr + c.Dr, Dw: t.Dw + c.Dw, D1mr: t.D1mr + c.D1mr, D1mw: t.D1mw + c.D1mw }), { Dr: 0, Dw: 0, D1mr: 0, D1mw: 0 })
    expect(total(ours)).toEqual(total(theirs))
    const differing = [...new Set([...ours.keys(), ...theirs.keys()])].filter((k) => JSON.stringify(ours.get(k)) !== JSON.stringify(theirs.get(k)))
    const lineOf = (k: string) => k.slice(k.lastIndexOf(':'))
    for (const k of differing) expect(differing.some((o) => o !== k && lineOf(o) === lineOf(k)), k).toBe(true)
    expect(differing.length).toBeLessThanOrEqual(8)
    // The heatmap's source text: the program's file is read; glibc's relative paths are refused
    // in one line, never resolved against Stride's own working directory.
    const service = createStrideService()
    try {
      const own = report.lines.find((l) => l.file.endsWith('libc-calls.c'))!.file
      await expect(service.call('getSource', { session, file: own })).resolves.toMatchObject({ path: own })
      const msort = [...theirs.keys()].find((k) => k.includes('msort.c'))!.replace(/:\d+$/, '')
      await expect(service.call('getSource', { session, file: msort })).rejects.toThrow(/is relative to the build directory of the library it comes from/)
    } finally {
      await service.dispose()
    }
  })
})


/**
 * The Frida backend end to end through the built CLI, on the spin example:
 *  - where `frida` is not importable (this team's machines): `stride trace --attach` fails
 *    with the one-line install hint, a non-zero status and no stack trace;
 *  - where it is: attach to the running process, trace sumfunc for 100,000 events, detach;
 *    the process keeps running, and the access sequence equals the Valgrind backend's trace
 *    of the same function, modulo the load base (stack slots modulo the stack's position).
 *    Reported as skipped, with the reason, where Frida cannot be imported.
 */
import { chmodSync, copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { EXAMPLES, fixedEnv, stride, tempDir } from '../../testing/cli-runner'
import { processAlive } from './frida-tracer'
import { killDetached, startDetached } from './testing/detached-target'
import { FRIDA_SKIP, fridaImportable } from './testing/frida-importable'

const SPIN = join(EXAMPLES, 'spin')
const CONFLICT = join(EXAMPLES, 'conflict')
/** One call of spin's sumfunc: 3 loads x 4096 elements and the return's stack read. */
const CALL = 3 * 4096 + 1
const FRIDA = fridaImportable()

// Outside Node's child tracking: Frida's attach waits for a stop signal Node would take.
const startSpin = (args: string[] = []) => startDetached(SPIN, args)
afterEach(() => killDetached())

interface Access { pc: number; address: number; size: number; kind: number }

function rawTrace(session: string, out: string, env: NodeJS.ProcessEnv, program = SPIN): { accesses: Access[]; base: number; exe: [number, number] } {
  const r = stride(['export', session, '--format', 'raw', '--out', out], env)
  expect(r.status, r.stderr).toBe(0)
  const buf = readFileSync(out)
  const accesses: Access[] = []
  for (let o = 0; o < buf.length; o += 24)
    accesses.push({ pc: Number(buf.readBigUInt64LE(o)), address: Number(buf.readBigUInt64LE(o + 8)), size: buf.readUInt32LE(o + 16), kind: buf.readUInt32LE(o + 20) })
  const db = new Database(session, { readonly: true })
  const m = db.prepare('SELECT base, start, end FROM modules WHERE path = ?').get(program) as { base: number; start: number; end: number }
  db.close()
  return { accesses, base: m.base, exe: [m.start, m.end] }
}

/** pc and global addresses relative to the load base; stack slots as "stack". */
function normalized(t: ReturnType<typeof rawTrace>): string[] {
  return t.accesses.map((a) => {
    const inExe = a.address >= t.exe[0] && a.address < t.exe[1] + (1 << 20)
    return `${(a.pc - t.base).toString(16)} ${a.kind} ${a.size} ${inExe ? (a.address - t.base).toString(16) : 'stack'}`
  })
}

/** Attaches to a fresh spin, records `maxEvents` of `fn`, checks it detached and runs on. */
async function attachToSpin(fn: string, maxEvents: number) {
  const home = tempDir('attach')
  const env = fixedEnv(home)
  const pid = await startSpin()
  const session = join(home, 'frida.stride')
  const r = stride(['trace', '--attach', String(pid), '--functions', fn, '--max-events', String(maxEvents), '--no-heap', '--out', session], env)
  expect(r.status, r.stderr).toBe(0)
  expect(r.stdout).toMatch(new RegExp(`^${maxEvents} events`))
  expect(r.stderr).toMatch(/detached from process \d+, which keeps running/)
  await new Promise((res) => setTimeout(res, 300))
  expect(processAlive(pid)).toBe(true)
  return { home, env, session }
}


/** Accesses per heap data structure of a trace of `functions` in `program`, under Frida (`backend`: --backend frida) or Valgrind ([]). */
function heapAccesses(home: string, env: ReturnType<typeof fixedEnv>, program: string, functions: string, backend: string[]): Record<string, number> {
  const session = join(home, `${backend.length ? 'frida' : 'valgrind'}-${functions}.stride`)
  const t = stride(['trace', '--launch', program, ...backend, '--functions', functions, '--out', session], env)
  expect(t.status, t.stderr).toBe(0)
  const db = new Database(session, { readonly: true })
  const rows = db.prepare("SELECT v.name AS name, SUM(pv.accesses) AS n FROM point_variables pv JOIN variables v ON v.id = pv.variable WHERE v.kind = 'heap' GROUP BY v.id ORDER BY v.name").all() as Array<{ name: string; n: number }>
  db.close()
  return Object.fromEntries(rows.map((r) => [r.name, r.n]))
}

describe('stride trace --attach (Frida backend)', () => {
  it('without Frida: the install hint on one line, non-zero exit, no stack trace', async (ctx) => {
    if (FRIDA) ctx.skip('frida is installed here: the missing-Frida path cannot be shown')
    const home = tempDir('attach')
    const pid = await startSpin()
    const r = stride(['trace', '--attach', String(pid), '--functions', 'sumfunc', '--max-events', '100000', '--out', join(home, 's.stride')], fixedEnv(home))
    expect(r.status).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^stride trace: Frida is not installed: install it with "npm install frida"/)])
    expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/)
    expect(processAlive(pid)).toBe(true)
  })

  it('names a missing function or process before Frida is needed', async () => {
    const home = tempDir('attach')
    const pid = await startSpin()
    const missing = stride(['trace', '--attach', String(pid), '--functions', 'no_such_fn', '--out', join(home, 's.stride')], fixedEnv(home))
    expect(missing.status).not.toBe(0)
    expect(missing.stderr).toMatch(/"no_such_fn" not found in .*spin/)
    const gone = stride(['trace', '--attach', '4194000', '--functions', 'sumfunc', '--out', join(home, 's.stride')], fixedEnv(home))
    expect(gone.stderr.trim()).toBe('stride trace: Process 4194000 is gone (it exited or the PID is wrong); pick a running process from the list.')
  })

  it('attaches to a running example, traces sumfunc for 100,000 events, detaches; same accesses as Valgrind modulo load base', async (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const { home, env, session } = await attachToSpin('sumfunc', 100000)

    const vg = join(home, 'valgrind.stride')
    const v = stride(['trace', '--launch', SPIN, '--functions', 'sumfunc', '--max-events', '100000', '--no-heap', '--out', vg, '--', '40'], env)
    expect(v.status, v.stderr).toBe(0)
    const fr = normalized(rawTrace(session, join(home, 'f.raw'), env))
    const va = normalized(rawTrace(vg, join(home, 'v.raw'), env))
    expect(fr).toHaveLength(100000)
    // Both start at a call's first access: Stalker follows from sumfunc's entry.
    expect(fr).toEqual(va)
  })

  it('attaches by process name', async (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    // A name no other process on the machine has.
    const name = `spin${process.pid}`
    copyFileSync(SPIN, join(home, name))
    chmodSync(join(home, name), 0o755)
    const pid = await startDetached(join(home, name))
    const r = stride(['trace', '--attach', name, '--functions', 'sumfunc', '--max-events', '50000', '--no-heap', '--out', join(home, 's.stride')], fixedEnv(home))
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^50000 events/)
    expect(r.stderr).toContain(`detached from process ${pid}, which keeps running`)
    expect(processAlive(pid)).toBe(true)
  })

  it('spawns a program suspended, instruments, resumes: the whole run equals the Valgrind backend, modulo load base, and simulates the same per line', (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const env = fixedEnv(home)
    const fr = join(home, 'frida.stride')
    const f = stride(['trace', '--launch', CONFLICT, '--backend', 'frida', '--functions', 'sumfunc', '--no-heap', '--out', fr], env)
    expect(f.status, f.stderr).toBe(0)
    const vg = join(home, 'valgrind.stride')
    const v = stride(['trace', '--launch', CONFLICT, '--functions', 'sumfunc', '--no-heap', '--out', vg], env)
    expect(v.status, v.stderr).toBe(0)
    const a = normalized(rawTrace(fr, join(home, 'f.raw'), env, CONFLICT))
    const b = normalized(rawTrace(vg, join(home, 'v.raw'), env, CONFLICT))
    expect(a.length).toBeGreaterThan(20000)
    expect(a).toEqual(b)
    // Its Cachegrind-compatible simulation matches the Valgrind session's on every line.
    const lines = (session: string) => {
      const sim = stride(['simulate', session, '--cache', 'L1:32K:8:64', '--cachegrind-compatible'], env)
      expect(sim.status, sim.stderr).toBe(0)
      const rep = stride(['report', session, '--by', 'line', '--json'], env)
      expect(rep.status, rep.stderr).toBe(0)
      return (JSON.parse(rep.stdout) as { lines: unknown[] }).lines
    }
    const fl = lines(fr)
    expect(fl.length).toBeGreaterThan(0)
    expect(fl).toEqual(lines(vg))
  })

  it("Mohan's four sampling modes: complete, max-samples, periodic and convergence each record and detach", async (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const env = fixedEnv(home)
    const pid = await startSpin()
    const events: Record<string, number> = {}
    for (const mode of ['complete', 'max-samples=5', 'periodic=50,450', 'convergence=0.05']) {
      const r = stride(['trace', '--attach', String(pid), '--functions', 'sumfunc', '--sampling', mode, '--seconds', '1.5', '--no-heap', '--out', join(home, `${mode}.stride`)], env)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/detached from process \d+, which keeps running/)
      events[mode] = Number(/^(\d+) events/.exec(r.stdout)![1])
    }
    expect(processAlive(pid)).toBe(true)
    // Whole calls only: entry to exit of each sampled call.
    expect(events['max-samples=5']).toBe(5 * CALL)
    // Convergence ends once the calls' stream metrics settle: fewer events than complete.
    expect(events['convergence=0.05']).toBeGreaterThan(CALL)
    expect(events['convergence=0.05']).toBeLessThan(events.complete!)
    // 50 ms on in every 500: well under the complete trace of the same time.
    expect(events['periodic=50,450']).toBeGreaterThan(0)
    expect(events['periodic=50,450']).toBeLessThan(events.complete! / 2)
  })

  it('a launched program that runs to its end under Frida: every call recorded, not partial, its output shown and its exit status and recorder in info, as under Valgrind', (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const session = join(home, 's.stride')
    const r = stride(['trace', '--launch', SPIN, '--backend', 'frida', '--functions', 'sumfunc', '--no-heap', '--out', session, '--', '300'], fixedEnv(home))
    expect(r.status, r.stderr).toBe(0)
    // The program's own lines first (spin prints its pid and its total), then Stride's summary.
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^spin: pid \d+$/)
    expect(lines[1]).toMatch(/^total = \d+\.\d$/)
    expect(lines[2]).toMatch(new RegExp(`^${300 * CALL} events`))
    expect(r.stdout).not.toMatch(/partial/)
    // The same lines as the program prints under the Valgrind backend.
    const v = stride(['trace', '--launch', SPIN, '--functions', 'sumfunc', '--no-heap', '--out', join(home, 'v.stride'), '--', '300'], fixedEnv(home))
    expect(v.status, v.stderr).toBe(0)
    expect(v.stdout.trim().split('\n')[1]).toBe(lines[1])
    const info = stride(['info', session], fixedEnv(home))
    expect(info.status, info.stderr).toBe(0)
    expect(info.stdout).toMatch(/^ {2}exit {6}status 0$/m)
    expect(info.stdout).toMatch(/^ {2}recorder {2}frida$/m)
  })

  it('a launched program that exits with a status: the status is the session\'s (trace summary and info)', (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const program = join(home, 'helper_alloc')
    execFileSync('cc', ['-O2', '-g', '-fPIE', '-pie', '-o', program, join(__dirname, 'fixtures', 'helper_alloc.c')])
    const session = join(home, 's.stride')
    // helper_alloc exits 1 when malloc fails: -1 elements asks for SIZE_MAX - 7 bytes.
    const r = stride(['trace', '--launch', program, '--backend', 'frida', '--functions', 'axpy', '--no-heap', '--out', session, '--', '-1'], fixedEnv(home))
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain('out of memory')
    expect(r.stdout).toMatch(/; the program exited with status 1 -> /)
    expect(stride(['info', session], fixedEnv(home)).stdout).toMatch(/^ {2}exit {6}status 1$/m)
  })

  it('an attached process that exits mid-trace (SIGTERM): the session is kept, partial, with the reason', async (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const pid = await startSpin()
    execFileSync('sh', ['-c', `setsid sh -c 'sleep 2; kill -TERM ${pid}' >/dev/null 2>&1 &`])
    const session = join(home, 's.stride')
    const r = stride(['trace', '--attach', String(pid), '--functions', 'sumfunc', '--seconds', '30', '--no-heap', '--out', session], fixedEnv(home))
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^\d+ events.*partial: target-exited-early — process \d+ exited during the trace/)
    expect(Number(/^(\d+) events/.exec(r.stdout)![1])).toBeGreaterThan(0)
    expect(stride(['info', session], fixedEnv(home)).status).toBe(0)
  })

  it('a target that crashes mid-trace (SIGSEGV): the session is kept, partial, with the reason', (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const program = join(home, 'crash_after')
    execFileSync('cc', ['-O2', '-g', '-fPIE', '-pie', '-o', program, join(__dirname, 'fixtures', 'crash_after.c')])
    const session = join(home, 's.stride')
    const r = stride(['trace', '--launch', program, '--backend', 'frida', '--functions', 'work', '--no-heap', '--out', session, '--', '200'], fixedEnv(home))
    expect(r.status, r.stderr).toBe(0)
    // The agent's exception handler names the crash and drains its ring, but the last batch
    // can be cut off by the dying process: most of the 200 calls x 2048 loads are kept (all
    // of them in most runs).
    expect(r.stdout).toMatch(/^\d+ events.*partial: target-crashed — process \d+ crashed \(access-violation at 0x[0-9a-f]+ \(read of 0x[0-9a-f]+\)\)/)
    expect(Number(/^(\d+) events/.exec(r.stdout)![1])).toBeGreaterThan(100 * 2048)
    expect(stride(['info', session], fixedEnv(home)).status).toBe(0)
  })

  it('malloc/free events with stacks: heap blocks are named after their variable, as under Valgrind', (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const env = fixedEnv(home)
    const program = join(home, 'heap_build')
    execFileSync('cc', ['-O2', '-g', '-fPIE', '-pie', '-o', program, join(__dirname, 'fixtures', 'heap_build.c')])
    const rows = (backend: string[]) => {
      const session = join(home, `${backend.length ? 'frida' : 'valgrind'}.stride`)
      const t = stride(['trace', '--launch', program, ...backend, '--functions', 'build', '--out', session], env)
      expect(t.status, t.stderr).toBe(0)
      expect(stride(['simulate', session, '--cache', 'L1:32K:8:64'], env).status).toBe(0)
      const r = stride(['report', session, '--by', 'variable'], env)
      expect(r.status, r.stderr).toBe(0)
      // "x (heap)  reads writes ..." (miss counts depend on where each malloc put the blocks)
      return /^x \(heap\)\s+(\d+)\s+(\d+)/m.exec(r.stdout)?.slice(1)
    }
    const frida = rows(['--backend', 'frida'])
    expect(frida).toEqual(['3960', '4000'])
    expect(frida).toEqual(rows([]))
  })

  it('the aligned allocators under Frida: PolyBench/C-style arrays (posix_memalign through helpers) are named A, B, C as under Valgrind', (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const env = fixedEnv(home)
    const program = join(home, 'polybench-macros')
    execFileSync('cc', ['-O2', '-g', '-fPIE', '-pie', '-o', program, join(__dirname, '..', '..', 'correlate', 'fixtures', 'outside', 'polybench-macros.c')])
    const heap = (backend: string[]) => heapAccesses(home, env, program, 'kernel_gemm', backend)
    const frida = heap(['--backend', 'frida'])
    expect(Object.keys(frida).sort()).toEqual(['A', 'B', 'C'])
    expect(frida).toEqual(heap([]))
  })

  it('heap blocks allocated through helpers (-O2, no frame pointers) are named after the caller\'s variables xs, ys, zs, as under Valgrind', (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const home = tempDir('attach')
    const env = fixedEnv(home)
    const program = join(home, 'helper_alloc')
    execFileSync('cc', ['-O2', '-g', '-fPIE', '-pie', '-fomit-frame-pointer', '-o', program, join(__dirname, 'fixtures', 'helper_alloc.c')])
    const heap = (backend: string[]) => heapAccesses(home, env, program, 'axpy', backend)
    const frida = heap(['--backend', 'frida'])
    // axpy reads xs and ys once each and reads and writes zs (1,000 elements).
    expect(frida).toEqual({ xs: 1000, ys: 1000, zs: 2000 })
    expect(frida).toEqual(heap([]))
  })

  it("a function in a shared object (libc's usleep, called by spin): its accesses are recorded at its runtime addresses", async (ctx) => {
    if (!FRIDA) ctx.skip(FRIDA_SKIP)
    const { home, env, session } = await attachToSpin('usleep', 500)
    const out = join(home, 's.raw')
    expect(stride(['export', session, '--format', 'raw', '--out', out], env).status).toBe(0)
    const buf = readFileSync(out)
    const db = new Database(session, { readonly: true })
    const libc = db.prepare("SELECT start, end FROM modules WHERE path LIKE '%/libc.so%'").get() as { start: number; end: number }
    db.close()
    for (let o = 0; o < buf.length; o += 24) {
      const pc = Number(buf.readBigUInt64LE(o))
      expect(pc >= libc.start && pc < libc.end).toBe(true)
    }
  })
})

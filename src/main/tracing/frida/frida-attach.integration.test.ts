/**
 * The Frida backend end to end through the built CLI, on the spin example:
 *  - where `frida` is not importable (this team's machines): `stride trace --attach` fails
 *    with the one-line install hint, a non-zero status and no stack trace;
 *  - where it is: attach to the running process, trace sumfunc for 100,000 events, detach;
 *    the process keeps running, and the access sequence equals the Valgrind backend's trace
 *    of the same function, modulo the load base (stack slots modulo the stack's position).
 *    Reported as skipped, with the reason, where Frida cannot be imported.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { EXAMPLES, fixedEnv, stride, tempDir } from '../../testing/cli-runner'
import { processAlive } from './frida-tracer'
import { killDetached, startDetached } from './testing/detached-target'
import { FRIDA_SKIP, fridaImportable } from './testing/frida-importable'

const SPIN = join(EXAMPLES, 'spin')
const FRIDA = fridaImportable()

// Outside Node's child tracking: Frida's attach waits for a stop signal Node would take.
const startSpin = (args: string[] = []) => startDetached(SPIN, args)
afterEach(() => killDetached())

interface Access { pc: number; address: number; size: number; kind: number }

function rawTrace(session: string, out: string, env: NodeJS.ProcessEnv): { accesses: Access[]; base: number; exe: [number, number] } {
  const r = stride(['export', session, '--format', 'raw', '--out', out], env)
  expect(r.status, r.stderr).toBe(0)
  const buf = readFileSync(out)
  const accesses: Access[] = []
  for (let o = 0; o < buf.length; o += 24)
    accesses.push({ pc: Number(buf.readBigUInt64LE(o)), address: Number(buf.readBigUInt64LE(o + 8)), size: buf.readUInt32LE(o + 16), kind: buf.readUInt32LE(o + 20) })
  const db = new Database(session, { readonly: true })
  const m = db.prepare('SELECT base, start, end FROM modules WHERE path = ?').get(SPIN) as { base: number; start: number; end: number }
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
    const home = tempDir('attach')
    const env = fixedEnv(home)
    const pid = await startSpin()
    const session = join(home, 'frida.stride')
    const r = stride(['trace', '--attach', String(pid), '--functions', 'sumfunc', '--max-events', '100000', '--no-heap', '--out', session], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^100000 events/)
    expect(r.stderr).toMatch(/detached from process \d+, which keeps running/)
    await new Promise((res) => setTimeout(res, 300))
    expect(processAlive(pid)).toBe(true)

    const vg = join(home, 'valgrind.stride')
    const v = stride(['trace', '--launch', SPIN, '--functions', 'sumfunc', '--max-events', '100000', '--no-heap', '--out', vg, '--', '40'], env)
    expect(v.status, v.stderr).toBe(0)
    const fr = normalized(rawTrace(session, join(home, 'f.raw'), env))
    const va = normalized(rawTrace(vg, join(home, 'v.raw'), env))
    expect(fr).toHaveLength(100000)
    // Both start at a call's first access: Stalker follows from sumfunc's entry.
    expect(fr).toEqual(va)
  })
})

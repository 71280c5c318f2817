/**
 * Sessions that cannot lie (issue 51): one writer per session file, and only a complete trace
 * replaces a session. Real `stride trace` processes on the built CLI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, example, fixedEnv, sessionInfo, strideOk, tempDir } from '../testing/cli-runner'
import { openDb } from './open-db'

const home = tempDir('one-writer')
const env = fixedEnv(home)
const ROUNDS = '100000001' // runs far longer than any case: only a kill ends it

interface Ended {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** `group`: in a process group of its own, as a terminal's foreground job (Ctrl+C signals the whole group). */
function start(args: string[], group = false): { child: ChildProcess; ended: Promise<Ended> } {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: group })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
  const ended = new Promise<Ended>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, ended }
}

function chunksIn(session: string): number {
  try {
    const db = openDb(session, { readonly: true })
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM trace_chunks').get() as { n: number }).n
    } finally {
      db.close()
    }
  } catch {
    return 0
  }
}

async function until(what: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 100))
  }
}

afterAll(() => {
  spawnSync('pkill', ['-KILL', '-f', `spin ${ROUNDS}`])
})

describe('one writer per session file', () => {
  it('two concurrent stride trace to one new --out: one complete session, the other refused in one line', async () => {
    const out = join(home, 'both.stride')
    const a = start(['trace', '--launch', example('micro'), '--out', out])
    const b = start(['trace', '--launch', example('micro'), '--out', out])
    const [ra, rb] = await Promise.all([a.ended, b.ended])
    const results = [ra, rb]
    const won = results.filter((r) => r.code === 0)
    const lost = results.filter((r) => r.code !== 0)
    expect(won).toHaveLength(1)
    expect(lost).toHaveLength(1)
    const refusal = lost[0]!.stderr.trim()
    expect(refusal.split('\n')).toHaveLength(1)
    expect(refusal).toMatch(/both\.stride is being written by pid \d+ \(stride trace --launch .*micro, since .*\); wait for it to end, or choose another --out\./)
    const s = sessionInfo(out, env)
    expect(s.partial).toBe(false)
    expect(s.stopReason).toBe('completed')
    expect(won[0]!.stdout).toContain(`${s.events} events`)
    // Nothing else is left beside it: no side files, no lock.
    expect(readdirSync(home).filter((n) => n.startsWith('both.stride') && !/-(wal|shm)$/.test(n))).toEqual(['both.stride'])
  }, 120_000)

  it('a trace while another is writing the session is refused at once, and the first one completes', async () => {
    const out = join(home, 'long.stride')
    const a = start(['trace', '--launch', example('spin'), '--functions', 'sumfunc', '--out', out, '--', ROUNDS])
    await until(() => chunksIn(out) >= 1)
    const b = start(['trace', '--launch', example('micro'), '--out', out])
    const rb = await b.ended
    expect(rb.code).not.toBe(0)
    expect(rb.stderr.trim()).toMatch(new RegExp(`^stride trace: .*long\\.stride is being written by pid ${a.child.pid} \\(stride trace --launch .*spin, since [^)]*\\); wait for it to end, or choose another --out\\.$`))
    // A simulation is refused too while the trace may still replace the file.
    const sim = spawnSync(process.execPath, [CLI, 'simulate', out, '--cache', 'L1:32K:8:64'], { env, encoding: 'utf8' })
    expect(sim.status).not.toBe(0)
    expect(sim.stderr.trim()).toMatch(/long\.stride is being written by pid \d+ .*; wait for it to end, or simulate it once the trace has ended\.$/)
    a.child.kill('SIGTERM')
    const ra = await a.ended
    expect(ra.code).toBe(0)
    expect(sessionInfo(out, env).stopReason).toBe('cancelled')
    expect(existsSync(`${out}.lock`)).toBe(false)
  }, 180_000)

  it('a stale lock (its pid dead) does not block a trace', () => {
    const out = join(home, 'stale.stride')
    // A pid that is certainly not running: a child that has exited.
    const dead = spawnSync('true').pid!
    require('node:fs').writeFileSync(`${out}.lock`, JSON.stringify({ pid: dead, command: 'stride trace (killed)', started: '2020-01-01T00:00:00Z' }))
    strideOk(['trace', '--launch', example('micro'), '--out', out], env)
    expect(sessionInfo(out, env).partial).toBe(false)
    expect(existsSync(`${out}.lock`)).toBe(false)
  }, 120_000)
})

describe('only a complete trace replaces a session', () => {
  it('a re-trace stopped by SIGTERM leaves the complete session byte-identical and keeps the partial beside it, where the message says', async () => {
    const out = join(home, 'keep.stride')
    strideOk(['trace', '--launch', example('micro'), '--out', out], env)
    const before = readFileSync(out)
    const t = start(['trace', '--launch', example('spin'), '--functions', 'sumfunc', '--force', '--out', out, '--', ROUNDS])
    // The re-trace records beside the session until it ends.
    await until(() => readdirSync(home).some((n) => n.startsWith('keep.stride.recording-') && !n.endsWith('-wal') && !n.endsWith('-shm') && chunksIn(join(home, n)) >= 1))
    t.child.kill('SIGTERM')
    const r = await t.ended
    expect(r.code).toBe(0)
    expect(readFileSync(out).equals(before)).toBe(true)
    const s = sessionInfo(out, env)
    expect(s.partial).toBe(false)
    const note = r.stderr.trim().split('\n').find((l) => /did not complete/.test(l))
    expect(note).toMatch(/^stride trace: note: the trace did not complete, so .*keep\.stride is kept as it was \(only a complete trace replaces a session\); what was recorded is in (.*keep\.partial-\d{8}-\d{6}\.stride)\.$/)
    const kept = /what was recorded is in (.*)\.$/.exec(note!)![1]!
    expect(r.stdout).toContain(`-> ${kept}`)
    const p = sessionInfo(kept, env)
    expect(p.partial).toBe(true)
    expect(p.stopReason).toBe('cancelled')
    expect(p.events).toBeGreaterThan(0)
    // No side file or lock is left.
    expect(readdirSync(home).filter((n) => n.startsWith('keep.') && !n.startsWith('keep.partial-') && !/-(wal|shm)$/.test(n))).toEqual(['keep.stride'])
  }, 180_000)

  it('a re-trace stopped by Ctrl+C (SIGINT to Stride, Valgrind and the program at once) leaves the complete session byte-identical', async () => {
    const out = join(home, 'ctrlc.stride')
    strideOk(['trace', '--launch', example('micro'), '--out', out], env)
    const before = readFileSync(out)
    const t = start(['trace', '--launch', example('spin'), '--functions', 'sumfunc', '--force', '--out', out, '--', ROUNDS], true)
    await until(() => readdirSync(home).some((n) => n.startsWith('ctrlc.stride.recording-') && !n.endsWith('-wal') && !n.endsWith('-shm') && chunksIn(join(home, n)) >= 1))
    process.kill(-t.child.pid!, 'SIGINT')
    const r = await t.ended
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/)
    expect(readFileSync(out).equals(before)).toBe(true)
    expect(sessionInfo(out, env).partial).toBe(false)
    // What was recorded is kept beside it, partial, where the note says; no side file or lock is left.
    const kept = /what was recorded is in (.*)\.$/m.exec(r.stderr)?.[1]
    expect(kept, r.stderr).toMatch(/ctrlc\.partial-\d{8}-\d{6}\.stride$/)
    expect(sessionInfo(kept!, env).partial).toBe(true)
    expect(readdirSync(home).filter((n) => n.startsWith('ctrlc.') && !n.startsWith('ctrlc.partial-') && !/-(wal|shm)$/.test(n))).toEqual(['ctrlc.stride'])
  }, 180_000)

  it('a complete re-trace replaces the session', () => {
    const out = join(home, 'replace.stride')
    strideOk(['trace', '--launch', example('micro'), '--max-events', '1000', '--out', out], env)
    const first = sessionInfo(out, env)
    strideOk(['trace', '--launch', example('micro'), '--out', out], env)
    const second = sessionInfo(out, env)
    expect(second.partial).toBe(false)
    expect(second.events).toBeGreaterThan(first.events)
    expect(readdirSync(home).filter((n) => n.startsWith('replace.') && !/-(wal|shm)$/.test(n))).toEqual(['replace.stride'])
  }, 120_000)
})

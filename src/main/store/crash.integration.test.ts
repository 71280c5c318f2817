/**
 * Fault injection on real traces: Stride killed mid-trace (SIGKILL, SIGTERM, SIGHUP) at
 * several points, and the traced program killed. Every time the session opens, says partial
 * with the reason, and simulates. Plus the files Stride must never destroy.
 */
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, example, fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'
import { openDb } from './open-db'
import { UNFINISHED_MESSAGE } from './session-writer'

const home = tempDir('crash')
const env = fixedEnv(home)
const ROUNDS = '100000000' // runs far longer than any case: only a kill ends it

function chunksIn(session: string): number {
  try {
    const db = openDb(session, { readonly: true })
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM trace_chunks').get() as { n: number }).n
    } finally {
      db.close()
    }
  } catch {
    return 0 // not created yet
  }
}

async function until(what: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Starts `stride trace` on spin, waits for `chunks` committed chunks, then runs `kill`. */
async function traceAndKill(name: string, chunks: number, kill: (stride: import('node:child_process').ChildProcess) => void): Promise<string> {
  const session = join(home, `${name}.stride`)
  const child = spawn(process.execPath, [CLI, 'trace', '--launch', example('spin'), '--functions', 'sumfunc', '--out', session, '--', ROUNDS], { env, stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  await until(() => chunksIn(session) >= chunks)
  kill(child)
  await exited
  // The traced program must not outlive Stride for long (its pipe is gone).
  spawnSync('pkill', ['-KILL', '-f', `spin ${ROUNDS}`])
  return session
}

function info(session: string): { partial: boolean; stopReason: string; stopMessage: string | null; events: number } {
  return JSON.parse(strideOk(['info', session, '--json'], env)) as { partial: boolean; stopReason: string; stopMessage: string | null; events: number }
}

function simulates(session: string): void {
  const out = strideOk(['simulate', session, '--cache', 'L1:32K:8:64'], env)
  expect(out).toMatch(/L1/)
}

afterAll(() => {
  spawnSync('pkill', ['-KILL', '-f', `spin ${ROUNDS}`])
})

describe('Stride killed mid-trace', () => {
  for (const [signal, chunks] of [
    ['SIGKILL', 1],
    ['SIGKILL', 3],
    ['SIGTERM', 2],
    ['SIGHUP', 2]
  ] as const)
    it(`${signal} after ${chunks} chunk${chunks > 1 ? 's' : ''}: the session opens as partial and simulates`, async () => {
      const session = await traceAndKill(`${signal}-${chunks}`, chunks, (c) => c.kill(signal))
      const s = info(session)
      expect(s.partial).toBe(true)
      expect(s.events).toBeGreaterThanOrEqual(chunks * 262144)
      // SIGKILL cannot be caught: the session says Stride stopped; the others stop the trace cleanly.
      if (signal === 'SIGKILL') expect(s.stopMessage).toBe(UNFINISHED_MESSAGE)
      else expect(s.stopReason).toBe('cancelled')
      simulates(session)
    })
})

describe('the traced program killed', () => {
  it('SIGKILL of the program: partial, "killed by SIGKILL", simulates', async () => {
    const session = await traceAndKill('target-kill', 1, () => {
      spawnSync('pkill', ['-KILL', '-f', `spin ${ROUNDS}`])
    })
    const s = info(session)
    expect(s).toMatchObject({ partial: true, stopReason: 'target-crashed' })
    expect(s.stopMessage).toMatch(/killed by SIGKILL/)
    simulates(session)
  })
})

describe('limits', () => {
  it('--seconds past what a timer can wait is refused, not a 1 ms trace', () => {
    const r = stride(['trace', '--launch', example('micro'), '--seconds', '3000000', '--out', join(home, 'long.stride')], env)
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe('stride trace: --seconds "3000000" must be a number of seconds from 0 to 2073600 (24 days).')
  })

  it('a cache no machine has is refused with the limit', () => {
    const session = join(home, 'limits.stride')
    strideOk(['trace', '--launch', example('micro'), '--max-events', '1000', '--out', session], env)
    const r = stride(['simulate', session, '--cache', 'L1:16G:8:64'], env)
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/at most 512 MiB/)
  })
})

describe('files Stride never destroys', () => {
  it('--out naming a source file, or the program itself', () => {
    const victim = join(home, 'victim.c')
    writeFileSync(victim, 'int main(void) { return 0; }\n')
    const r = stride(['trace', '--launch', example('micro'), '--out', victim], env)
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toMatch(/^stride trace: --out .*victim\.c exists and is not a Stride session; choose another file, or pass --force to replace it\.$/)
    expect(readFileSync(victim, 'utf8')).toContain('int main')
    const prog = join(home, 'micro')
    copyFileSync(example('micro'), prog)
    const before = readFileSync(prog)
    const p = stride(['trace', '--launch', prog, '--out', prog, '--force'], env)
    expect(p.status).toBe(2)
    expect(p.stderr).toMatch(/is the program being traced/)
    expect(readFileSync(prog).equals(before)).toBe(true)
  })

  it('export refuses its own input and leaves no partial output behind', () => {
    const session = join(home, 'export.stride')
    strideOk(['trace', '--launch', example('micro'), '--out', session], env)
    const bytes = readFileSync(session)
    const r = stride(['export', session, '--format', 'raw', '--out', session], env)
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/is the session being exported/)
    expect(readFileSync(session).equals(bytes)).toBe(true)
    // A damaged session: the export fails, and nothing is left at --out.
    const damaged = join(home, 'damaged.stride')
    copyFileSync(session, damaged)
    const db = openDb(damaged)
    db.prepare('UPDATE trace_chunks SET checksum = checksum + 1').run()
    db.close()
    const out = join(home, 'trace.bin')
    const e = stride(['export', damaged, '--format', 'raw', '--out', out], env)
    expect(e.status).not.toBe(0)
    expect(e.stderr.trim().split('\n')).toHaveLength(1)
    expect(e.stderr).toMatch(/is damaged at chunk 1 of \d+ \(its checksum does not match its bytes and place in the trace\)/)
    expect(() => readFileSync(out)).toThrow()
  })

  it('a run that cannot be stored after its table is printed: the table, one line saying so, the session as it was', () => {
    const session = join(home, 'store-fails.stride')
    strideOk(['trace', '--launch', example('micro'), '--out', session], env)
    strideOk(['simulate', session, '--cache', 'L1:32K:8:64'], env)
    // The file refuses the run's last rows (as a full disk would), inside the run's transaction:
    // its roll-up table rebuilt with the same columns and a constraint run 2 fails (a trigger
    // would do it too, but a session with one is not opened).
    const db = openDb(session)
    db.exec(`
      DROP INDEX run_rollup_run;
      ALTER TABLE run_rollup RENAME TO old_rollup;
      CREATE TABLE run_rollup (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, level INTEGER NOT NULL,
        variable TEXT, function TEXT, loop INTEGER,
        reads INTEGER NOT NULL, writes INTEGER NOT NULL, read_misses INTEGER NOT NULL, write_misses INTEGER NOT NULL,
        temporal_hits INTEGER, spatial_hits INTEGER, evictions INTEGER, CONSTRAINT disk_full CHECK (run < 2));
      INSERT INTO run_rollup SELECT * FROM old_rollup;
      DROP TABLE old_rollup;
      CREATE INDEX run_rollup_run ON run_rollup(run);`)
    db.close()
    const r = stride(['simulate', session, '--cache', 'L1:16K:4:64'], env)
    expect(r.status).not.toBe(0)
    expect(r.stdout).toMatch(/^run 2: L1 16384B 4-way 64B lines/)
    expect(r.stdout).toMatch(/micro\.c:\d+/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/the run shown above could not be stored in .*store-fails\.stride, which is as it was: .*CHECK constraint failed: disk_full/)
    const after = openDb(session, { readonly: true })
    expect(after.prepare('SELECT COUNT(*) FROM runs').pluck().get()).toBe(1)
    expect(after.prepare('SELECT COUNT(*) FROM run_points WHERE run = 2').pluck().get()).toBe(0)
    after.close()
  })
})

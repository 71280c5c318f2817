/**
 * `stride trace --launch` on Stride's Valgrind tool, as a user runs it: the program reads its
 * stdin and keeps its fds, its exit status is reported, threads are recorded, --follow-calls
 * widens --functions, and a limit detaches (the program runs on) or stops it.
 */
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, example, fixedEnv, sessionInfo, strideOk, tempDir } from '../../testing/cli-runner'

const dir = tempDir('tool-trace')
const env = fixedEnv(dir)

function compile(name: string, flags: string[]): string {
  const out = join(dir, name.replace(/\.c$/, ''))
  const r = spawnSync('cc', ['-g', '-O2', ...flags, '-o', out, join(__dirname, 'fixtures', name)], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return out
}

const info = (session: string) => sessionInfo(session, env)

/** The CLI with `input` on its stdin. */
function traceWithInput(args: string[], input: string) {
  return spawnSync(process.execPath, [CLI, 'trace', ...args], { env, input, encoding: 'utf8' })
}

describe("stride trace on Stride's Valgrind tool", () => {
  const program = compile('stdin-threads.c', ['-pthread'])

  it('gives the program its stdin, shows its output and exit status, and records every thread', () => {
    const session = join(dir, 'threads.stride')
    const r = traceWithInput(['--launch', program, '--out', session], '3\n')
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^read 3$/m) // the program read what was piped in
    expect(r.stdout).toMatch(/events, .*; the program exited with status 3 -> /)
    const s = info(session)
    expect(s).toMatchObject({ partial: false, stopReason: 'completed', programExit: { code: 3, signal: null }, recorder: 'stride-tool', threads: 3 })
    expect(s.stopMessage).toMatch(/3 threads: their accesses are interleaved/)
    expect(strideOk(['info', session], env)).toMatch(/exit\s+status 3/)
  })

  it('--functions records the function alone; --follow-calls adds what it calls', () => {
    const only = join(dir, 'kernel.stride')
    const follow = join(dir, 'kernel-follow.stride')
    expect(traceWithInput(['--launch', program, '--functions', 'kernel', '--out', only], '0\n').status).toBe(0)
    expect(traceWithInput(['--launch', program, '--functions', 'kernel', '--follow-calls', '--out', follow], '0\n').status).toBe(0)
    const a = info(only)
    const b = info(follow)
    const byFunction = (s: typeof a) => {
      const out: Record<string, number> = {}
      for (const p of s.points) out[p.function ?? '?'] = (out[p.function ?? '?'] ?? 0) + p.accesses
      return out
    }
    // kernel: 99,999 loads + 99,999 stores of the prefix sum (and its own stack traffic).
    expect(Object.keys(byFunction(a))).toEqual(['kernel'])
    expect(byFunction(a).kernel).toBeGreaterThanOrEqual(199_998)
    // helper's 100,000 stores come only with --follow-calls.
    expect(byFunction(b).helper).toBeGreaterThanOrEqual(100_000)
    expect(byFunction(b).kernel).toBe(byFunction(a).kernel)
  })

  it('a limit detaches: recording stops, the program runs to its end; --stop-at-limit kills it', () => {
    const detached = join(dir, 'detach.stride')
    const r = traceWithInput(['--launch', program, '--max-events', '1000', '--out', detached], '4\n')
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^read 4$/m) // it finished
    expect(info(detached)).toMatchObject({ events: 1000, partial: true, stopReason: 'max-events', programExit: { code: 4 } })
    expect(info(detached).stopMessage).toMatch(/recording stopped after 1000 events; the program ran on uninstrumented to its end/)

    const stopped = join(dir, 'stop.stride')
    const s = traceWithInput(['--launch', program, '--max-events', '1000', '--stop-at-limit', '--out', stopped], '4\n')
    expect(s.status, s.stderr).toBe(0)
    expect(s.stdout).not.toMatch(/^read 4$/m)
    expect(info(stopped)).toMatchObject({ events: 1000, partial: true, stopReason: 'max-events', programExit: { signal: 'SIGKILL' } })
  })

  it('the record stream is out of the program\'s reach: its first free fd is 3, and closing every fd loses nothing', () => {
    const closer = compile('close-all.c', ['-O0']) // one store per element
    const session = join(dir, 'close-all.stride')
    const out = strideOk(['trace', '--launch', closer, '--out', session], env)
    expect(out).toMatch(/^first fd 3$/m)
    const s = info(session)
    expect(s).toMatchObject({ partial: false, programExit: { code: 0 } })
    expect(s.points.filter((p) => p.function === 'main').reduce((n, p) => n + p.accesses, 0)).toBeGreaterThanOrEqual(1000)
  })

  it('a program that exits non-zero right away still leaves a clear summary', () => {
    const session = join(dir, 'no-input.stride')
    const r = traceWithInput(['--launch', program, '--out', session], '')
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/the program exited with status 2 -> /)
    expect(info(session).programExit).toEqual({ code: 2, signal: null })
  })

  it('the records come through the shared ring as through a pipe, byte for byte (many times round the ring)', () => {
    // Values of one length: the program's environment, and so its run, is the same for both.
    // One function: ld.so's start-up reads a stack table at random offsets, different each run.
    const raw = (transport: 'ring' | 'pipe') => {
      const session = join(dir, `micro-${transport}.stride`)
      const out = join(dir, `micro-${transport}.raw`)
      strideOk(['trace', '--launch', example('micro'), '--functions', 'sequential_stores', '--out', session], { ...env, STRIDE_RECORD_TRANSPORT: transport })
      strideOk(['export', session, '--format', 'raw', '--out', out], env)
      return readFileSync(out)
    }
    const ring = raw('ring')
    expect(ring.length).toBeGreaterThanOrEqual(1_000_000 * 24) // a million stores: 30 blocks of the ring
    expect(ring.equals(raw('pipe'))).toBe(true)
  })

  it('a forked child runs on unrecorded: the session holds the started process alone, through the ring or the pipe', () => {
    const forking = compile('fork.c', ['-O0'])
    for (const transport of ['ring', 'pipe']) {
      const session = join(dir, `fork-${transport}.stride`)
      const out = strideOk(['trace', '--launch', forking, '--out', session], { ...env, STRIDE_RECORD_TRANSPORT: transport })
      expect(out).toMatch(/^child done$/m)
      expect(out).toMatch(/^parent done$/m)
      const s = info(session)
      expect(s).toMatchObject({ partial: false, programExit: { code: 0 } })
      const accesses = (fn: string) => s.points.filter((p) => p.function === fn).reduce((n, p) => n + p.accesses, 0)
      expect(accesses('parent_work')).toBeGreaterThanOrEqual(100_000) // its stores, and -O0's loop counter
      expect(accesses('child_work')).toBe(0)
    }
  })

  it('a child the program leaves running (a daemon) does not hold the trace open', async () => {
    const daemon = compile('daemon.c', [])
    const session = join(dir, 'daemon.stride')
    const log = join(dir, 'daemon.out')
    // Output to a file: the daemon keeps whatever it inherited open for a minute.
    const out = openSync(log, 'w')
    const started = Date.now()
    const trace = spawn(process.execPath, [CLI, 'trace', '--launch', daemon, '--out', session], { env, stdio: ['ignore', out, out] })
    const [code] = (await once(trace, 'exit')) as [number | null]
    const took = Date.now() - started
    closeSync(out)
    const pid = Number(/^daemon (\d+)$/m.exec(readFileSync(log, 'utf8'))?.[1])
    if (pid > 0) process.kill(pid, 'SIGKILL')
    expect(code, readFileSync(log, 'utf8')).toBe(0)
    expect(took).toBeLessThan(20_000) // the daemon sleeps 60 s
    expect(info(session)).toMatchObject({ partial: false, programExit: { code: 0, signal: null } })
  })

  it('the example sessions say what recorded them', () => {
    const session = join(dir, 'conflict.stride')
    strideOk(['trace', '--launch', example('conflict'), '--out', session], env)
    expect(info(session)).toMatchObject({ recorder: 'stride-tool', threads: 1, programExit: { code: 0, signal: null } })
  })

  it('where the tool cannot be built, Lackey records instead and the user is told why', () => {
    const session = join(dir, 'fallback.stride')
    const fresh = { ...env, STRIDE_CACHE: join(dir, 'empty-cache'), CC: join(dir, 'no-such-cc') }
    const r = spawnSync(process.execPath, [CLI, 'trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--out', session], { env: fresh, encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^stride trace: note: recorded with Lackey, which is much slower, because cannot run the C compiler .*no-such-cc.*install gcc/m)
    expect(info(session)).toMatchObject({ recorder: 'lackey', partial: false })
  })
})

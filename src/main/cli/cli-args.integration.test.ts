/**
 * The built CLI as a shell user drives it: `stride trace ... --launch PROG ARGS...` gives the
 * program its arguments without a "--", and `stride simulate ... | head` stores its run even
 * though the reader left before it was printed.
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CLI, fixedEnv, ROOT, sessionInfo, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('cli-args')
const env = fixedEnv(dir)
const numbers = join(dir, 'numbers.txt')
const session = join(dir, 'sort.stride')

interface RunsJson {
  runs: unknown[]
}

describe('stride trace --launch PROG ARGS...', () => {
  beforeAll(() => writeFileSync(numbers, '10\n9\n100\n2\n'))

  it("gives the program every word after it that is not trace's option, without --", () => {
    // -n is sort's: lexically 10 < 100 < 2 < 9, numerically 2 < 9 < 10 < 100.
    const r = stride(['trace', '--out', session, '--launch', '/usr/bin/sort', '-n', numbers], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^2\n9\n10\n100\n/)
    expect(r.stdout).toMatch(/ events, .* -> /)
    expect(sessionInfo(session, env).programExit).toEqual({ code: 0, signal: null })
  })

  it('leaves the words between PROG and -- to Stride, and the rest to the program', () => {
    const out = join(dir, 'dashes.stride')
    const r = stride(['trace', '--launch', '/bin/sh', '--no-heap', '--out', out, '--', '-c', 'exit 3'], env)
    expect(r.status, r.stderr).toBe(0)
    expect(sessionInfo(out, env).programExit).toEqual({ code: 3, signal: null })
    // A program's option before --: still an unknown option of trace's, in one line.
    const bad = stride(['trace', '--launch', '/usr/bin/sort', '-n', '--out', out, '--', numbers], env)
    expect(bad.status).toBe(2)
    expect(bad.stderr.trim()).toMatch(/^stride trace: unknown option -n; accepted: --launch/)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe('stride simulate into a pipe its reader closed', () => {
  const traced = join(dir, 'sh.stride')
  beforeAll(() => void strideOk(['trace', '--launch', '/bin/sh', '--out', traced, '--', '-c', 'exit 0'], env))

  it('stores the run and exits quietly', async () => {
    const before = (JSON.parse(strideOk(['info', traced, '--json'], env)) as RunsJson).runs.length
    const child = spawn(process.execPath, [CLI, 'simulate', traced, '--cache', 'L1:32K:8:64'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    // The reader is gone before the command prints anything (as `| head -c 0` would be).
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    expect(status, stderr).toBe(0)
    expect(stderr).toBe('')
    const runs = (JSON.parse(strideOk(['info', traced, '--json'], env)) as RunsJson).runs
    expect(runs.length).toBe(before + 1)
  })
})

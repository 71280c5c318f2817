/**
 * Issue 51 item 8: `stride trace --seconds T` on a program that never ends detaches and waits
 * for it; the user is told so at the moment of the detach (not when it ends), with its pid and
 * --stop-at-limit, in one line on stderr.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, example, fixedEnv, tempDir } from '../testing/cli-runner'

const dir = tempDir('detach-note')
const env = fixedEnv(dir)

describe('stride trace --seconds on a program that runs on', () => {
  it('says at the detach that the program continues uninstrumented, its pid and how to stop it', async () => {
    const session = join(dir, 'spin.stride')
    const trace = spawn(process.execPath, [CLI, 'trace', '--seconds', '1', '--functions', 'sumfunc', '--out', session, '--launch', example('spin')], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    trace.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    trace.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const ended = once(trace, 'exit')
    const deadline = Date.now() + 30_000
    while (!/^stride trace: note: recording stopped/m.test(stderr) && Date.now() < deadline && trace.exitCode === null) await new Promise((r) => setTimeout(r, 20))
    // The note is out while the command still waits for the program.
    const stillRunning = trace.exitCode === null
    const programPid = Number(/^spin: pid (\d+)$/m.exec(stdout)?.[1])
    const notePid = Number(/\(pid (\d+)\)/.exec(stderr)?.[1])
    if (notePid > 0) process.kill(notePid, 'SIGTERM')
    else if (programPid > 0) process.kill(programPid, 'SIGKILL')
    trace.kill('SIGKILL') // only reached if the program pid was not found
    await ended
    expect(stillRunning, stderr).toBe(true)
    expect(notePid).toBe(programPid)
    const lines = stderr.split('\n').filter((l) => l.startsWith('stride trace: note: recording stopped'))
    expect(lines).toEqual([
      `stride trace: note: recording stopped after 1 s; the program (pid ${programPid}) runs on uninstrumented and the trace ends when it does: kill ${programPid} to end it now (--stop-at-limit stops it at the limit instead).`
    ])
  }, 60_000)
})

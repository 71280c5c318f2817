/**
 * Issue 51 item 9: an export stopped by SIGTERM or SIGINT leaves no `FILE.partial-PID` behind,
 * never touches FILE, and ends with the signal's conventional status (it dies of it).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('export-signal')
const env = fixedEnv(dir)
const session = join(dir, 'mult.stride')

/** Starts an export to `out`, sends `signal` once its partial file appears; how it ended. */
async function interrupted(out: string, signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [CLI, 'export', session, '--out', out, '--force'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const ended = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  let sent = false
  const deadline = Date.now() + 20_000
  while (!sent && Date.now() < deadline && child.exitCode === null) {
    if (readdirSync(dir).some((f) => f.includes('.partial-'))) {
      child.kill(signal)
      sent = true
    } else await new Promise((r) => setTimeout(r, 2))
  }
  const [code, killedBy] = await ended
  return { sent, code, killedBy, stderr }
}

describe('stride export interrupted', () => {
  it('removes its partial file on SIGTERM and SIGINT and leaves the destination as it was', async () => {
    // mult: 5 M accesses, 121 MB of records: the export takes about a second.
    strideOk(['trace', '--out', session, '--launch', example('mult')], env)
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const out = join(dir, `trace-${signal}.bin`)
      writeFileSync(out, 'old contents')
      const r = await interrupted(out, signal)
      expect(r.sent, 'the partial file never appeared').toBe(true)
      expect(r.killedBy, r.stderr).toBe(signal)
      expect(r.code).toBe(null)
      expect(readdirSync(dir).filter((f) => f.includes('.partial-'))).toEqual([])
      expect(readFileSync(out, 'utf8')).toBe('old contents')
      expect(r.stderr).toBe('')
    }
    expect(existsSync(session)).toBe(true)
  }, 60_000)
})

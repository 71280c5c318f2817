/**
 * A run that covers fewer accesses than its session holds (stored from a prefix of a recording
 * that grew after: older sessions, before the one-writer locks) is said to be one by `stride
 * info` and `stride report`, in one line. Crafted: a traced run's `runs.accesses` lowered.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb } from '../store/open-db'
import { example, fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('run-coverage')
const env = fixedEnv(dir)

describe('a run shorter than its session', () => {
  it('info and report say in one line that it covers a prefix', () => {
    const session = join(dir, 'conflict.stride')
    strideOk(['trace', '--cache', 'L1:32K:8:64', '--functions', 'sumfunc', '--out', session, '--launch', example('conflict')], env)
    const events = (JSON.parse(strideOk(['info', session, '--json'], env)) as { events: number }).events
    // A whole run: nothing said.
    expect(strideOk(['info', session], env)).not.toMatch(/covers/)
    expect(stride(['report', session], env).stderr).toBe('')
    const db = openDb(session)
    db.prepare('UPDATE runs SET accesses = ? WHERE run = 1').run(events - 1000)
    db.close()
    const line = `run 1 covers ${(events - 1000).toLocaleString('en-US')} of the session's ${events.toLocaleString('en-US')} accesses: simulate again for the whole trace`
    expect(strideOk(['info', session], env).split('\n').filter((l) => l.includes('covers')).map((l) => l.trim())).toEqual([line])
    const r = stride(['report', session], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toBe(`stride report: note: ${line}.\n`)
  }, 60_000)
})

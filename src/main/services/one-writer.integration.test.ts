/**
 * One writer per session file in one process (the app's and the web server's trace service):
 * five traces started to one `out` at once are one trace and four one-line refusals, and the
 * session that remains is whole. Needs `npm run build` (the trace worker) and the examples.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ApiEvents } from '../../shared/api'
import { example, sessionInfo } from '../testing/cli-runner'
import { serviceForTests, untilJobEnds, type ServiceEvent } from '../testing/service-events'
import { detachedContext } from './backend'

const { service, home, env } = serviceForTests('service-one-writer')
const ROUNDS = '100000002'

afterAll(() => {
  spawnSync('pkill', ['-KILL', '-f', `spin ${ROUNDS}`])
})

describe('trace service: one writer per session file', () => {
  it('five traces to one out: one runs, four are refused at once naming it; the session is whole and traceable again', async () => {
    const out = join(home, 'five.stride')
    const events: ServiceEvent[] = []
    service.subscribe('c1', (name, data) => events.push({ name, data }))
    const starts = await Promise.allSettled(
      Array.from({ length: 5 }, () => service.call('startTrace', { program: example('spin'), args: [ROUNDS], functions: ['sumfunc'], out }, detachedContext('c1')))
    )
    const started = starts.filter((s) => s.status === 'fulfilled')
    const refused = starts.filter((s): s is PromiseRejectedResult => s.status === 'rejected')
    expect(started).toHaveLength(1)
    expect(refused).toHaveLength(4)
    for (const r of refused) {
      const message = (r.reason as Error).message
      expect(message.split('\n')).toHaveLength(1)
      expect(message).toMatch(new RegExp(`five\\.stride is being written by pid ${process.pid} \\(Stride's app or server, tracing .*spin, since [^)]*\\); wait for it to end, or choose another --out\\.$`))
    }
    const jobId = (started[0] as PromiseFulfilledResult<{ jobId: string }>).value.jobId
    // Let it record a moment, then stop it: it keeps what it recorded.
    await new Promise((r) => setTimeout(r, 1500))
    await service.call('cancelJob', { jobId }, detachedContext('c1'))
    await untilJobEnds(events)
    const finished = events.find((e) => e.name === 'finished')?.data as ApiEvents['finished'] | undefined
    expect(finished?.session).toBe(out)
    const s = sessionInfo(out, env)
    expect(s.stopReason).toBe('cancelled')
    expect(readdirSync(home).filter((n) => n.startsWith('five.stride') && !/-(wal|shm)$/.test(n))).toEqual(['five.stride'])
    expect(existsSync(`${out}.lock`)).toBe(false)
    // The lock is gone: a next trace to the same out is accepted.
    events.length = 0
    const again = (await service.call('startTrace', { program: example('micro'), out }, detachedContext('c1'))) as { jobId: string }
    expect(again.jobId).toBeTruthy()
    await untilJobEnds(events)
    expect(events.find((e) => e.name === 'finished')).toBeTruthy()
    expect(sessionInfo(out, env).partial).toBe(false)
  }, 180_000)
})

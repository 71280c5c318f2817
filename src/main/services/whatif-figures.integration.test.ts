/**
 * One truth between a what-if and the session: the new run's figures the simulating worker
 * builds for the app (handed to the getRunFigures that follows) are the figures any later
 * getRunFigures builds from the session, and the run it was made from is stored with it. Needs
 * `npm run build` (the workers) and the examples.
 */
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { SessionInfo } from '../../shared/domain'
import { example } from '../testing/cli-runner'
import { finishedJob, serviceForTests } from '../testing/service-events'
import { detachedContext } from './backend'
import type { JsonText } from './json-text'

const { service, home } = serviceForTests('service-whatif-figures')

const text = (r: unknown) => Buffer.from((r as JsonText<unknown>).json).toString('utf8')
const l1 = (size: number) => ({ name: 'L1', size, assoc: 2, lineSize: 64, policy: 'lru' as const })
const l2 = { name: 'L2', size: 65536, assoc: 4, lineSize: 64, policy: 'lru' as const }

describe("a what-if's figures", () => {
  it('equal the figures getRunFigures builds from the session afterwards, and the run keeps its parent', async () => {
    const out = join(home, 'reuse.stride')
    const traced = await finishedJob(service, 'trace', () => service.call('startTrace', { program: example('reuse'), functions: [], out, simulate: { levels: [l1(4096), l2] } }, detachedContext('trace')))
    expect(traced.run).toBe(1)
    const whatIf = await finishedJob(service, 'whatif', () => service.call('simulate', { session: out, config: { levels: [l1(8192), l2] }, parent: 1 }, detachedContext('whatif')))
    expect(whatIf.run).toBe(2)
    // The first call takes the worker's figures, the second builds them from the file.
    const ready = text(await service.call('getRunFigures', { session: out, run: 2 }, detachedContext('whatif')))
    const built = text(await service.call('getRunFigures', { session: out, run: 2 }, detachedContext('whatif')))
    expect(JSON.parse(ready).run).toBe(2)
    expect(ready).toBe(built)
    // Not the figures of the run it came from.
    expect(ready).not.toBe(text(await service.call('getRunFigures', { session: out, run: 1 }, detachedContext('whatif'))))
    const info = (await service.call('openSession', { path: out }, detachedContext('whatif'))) as SessionInfo
    expect(info.runs.find((r) => r.run === 2)?.parent).toBe(1)
  })
})

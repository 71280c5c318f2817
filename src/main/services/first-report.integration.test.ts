/**
 * One truth between the trace and the session: the first run's report the trace's worker builds
 * for the app (handed to the getReport that follows, beside the views it stores from the same
 * tables) is the report any later getReport builds from the session, and the Advisor's diagnosis
 * it hands over is the one getAdvice reads from the session after. Needs `npm run build` (the
 * trace worker) and the examples.
 */
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { example } from '../testing/cli-runner'
import { finishedJob, serviceForTests } from '../testing/service-events'
import { detachedContext } from './backend'
import type { JsonText } from './json-text'

const { service, home } = serviceForTests('service-first-report')

const text = (r: unknown) => Buffer.from((r as JsonText<unknown>).json).toString('utf8')
/** What a client receives: JSON bytes handed over as they are, or the value as the bridge serializes it. */
const sent = (r: unknown) => (r !== null && typeof r === 'object' && (r as { json?: unknown }).json instanceof Uint8Array ? text(r) : JSON.stringify(r))

describe("the trace's first report", () => {
  for (const c of [
    { name: 'objects_shares', functions: ['sweep'] },
    { name: 'reuse', functions: [] }
  ])
    it(`${c.name}: equals the report getReport builds from the session afterwards, its diagnosis getAdvice's`, async () => {
      const out = join(home, `${c.name}.stride`)
      const levels = [
        { name: 'L1', size: 4096, assoc: 2, lineSize: 64, policy: 'lru' },
        { name: 'L2', size: 65536, assoc: 4, lineSize: 64, policy: 'lru' }
      ]
      const finished = await finishedJob(service, c.name, () => service.call('startTrace', { program: example(c.name), functions: c.functions, out, simulate: { levels } }, detachedContext(c.name)))
      expect(finished?.session).toBe(out)
      // The first call takes the worker's report, the second builds it from the file.
      const ready = text(await service.call('getReport', { session: out, run: 1 }, detachedContext(c.name)))
      const built = text(await service.call('getReport', { session: out, run: 1 }, detachedContext(c.name)))
      expect(JSON.parse(ready).references.length).toBeGreaterThan(0)
      expect(ready).toBe(built)
      // The Advisor's diagnosis of the first level, asked for beside it: the worker's, then the stored view's.
      const readyAdvice = await service.call('getAdvice', { session: out, run: 1, level: 'L1' }, detachedContext(c.name))
      const storedAdvice = await service.call('getAdvice', { session: out, run: 1, level: 'L1' }, detachedContext(c.name))
      expect((readyAdvice as { json?: unknown }).json).toBeInstanceOf(Uint8Array)
      expect(JSON.parse(sent(readyAdvice))).toMatchObject({ run: 1, level: 'L1' })
      expect(sent(readyAdvice)).toBe(sent(storedAdvice))
    })
})

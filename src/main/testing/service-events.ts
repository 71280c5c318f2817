/** The trace service in a test: a service for the test file, the events a client received, and waiting for a job to end among them. */
import { afterAll } from 'vitest'
import type { ApiEvents } from '../../shared/api'
import type { StrideBackend } from '../services/backend'
import { createStrideService } from '../services/stride-service'
import { fixedEnv, tempDir } from './cli-runner'

export type ServiceEvent = { name: string; data: unknown }

/** Resolves once a `finished` or `failed` event has arrived; rejects after `ms` without one. */
export async function untilJobEnds(events: readonly ServiceEvent[], ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!events.some((e) => e.name === 'finished' || e.name === 'failed')) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * A trace service for one test file, its settings and tool cache under a fresh folder (set
 * before the service starts: it reads them then), disposed after the file's tests.
 */
export function serviceForTests(name: string): { service: StrideBackend; home: string; env: NodeJS.ProcessEnv } {
  const home = tempDir(name)
  const env = fixedEnv(home)
  process.env.STRIDE_HOME = env.STRIDE_HOME
  process.env.STRIDE_CACHE = env.STRIDE_CACHE
  const service = createStrideService()
  afterAll(async () => {
    await service.dispose()
  })
  return { service, home, env }
}

/** Runs one job on its own client (`start` asks the service for it) to its end: its `finished` event; throws with the last event when there is none. */
export async function finishedJob(service: StrideBackend, client: string, start: () => Promise<unknown>, ms = 120_000): Promise<ApiEvents['finished']> {
  const events: ServiceEvent[] = []
  service.subscribe(client, (name, data) => events.push({ name, data }))
  await start()
  await untilJobEnds(events, ms)
  const finished = events.find((e) => e.name === 'finished')?.data as ApiEvents['finished'] | undefined
  if (!finished) throw new Error(`${client}: the job did not finish: ${JSON.stringify(events.at(-1))}`)
  return finished
}

/** The events a test's client of the trace service received, and waiting for a job to end among them. */

export type ServiceEvent = { name: string; data: unknown }

/** Resolves once a `finished` or `failed` event has arrived; rejects after `ms` without one. */
export async function untilJobEnds(events: readonly ServiceEvent[], ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!events.some((e) => e.name === 'finished' || e.name === 'failed')) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 100))
  }
}

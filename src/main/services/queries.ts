/**
 * Slice queries in flight: each runs in its own worker (runQueryWorker), can be cancelled by
 * the id its caller chose, and reports re-simulation progress as `queryProgress` events.
 */
import type { ApiParsedInput } from '../../shared/api'
import type { QuerySlice } from '../../shared/domain'
import { runQueryWorker, type QueryDone, type WorkerHandle } from '../workers/run-worker'
import { ApiEventChannel } from './event-channel'

export class QueryManager extends ApiEventChannel {
  private readonly running = new Map<string, WorkerHandle<QueryDone>>()
  async run(input: ApiParsedInput<'querySlice'>): Promise<QuerySlice> {
    const { queryId, ...rest } = input
    // A new query under the same id replaces the one still running (the view asked again).
    if (queryId) this.cancel(queryId)
    const handle = runQueryWorker(rest, (p) => {
      if (queryId) this.emit('queryProgress', { queryId, events: p.events, total: p.total })
    })
    if (queryId) this.running.set(queryId, handle)
    try {
      return (await handle.result).slice
    } finally {
      if (queryId && this.running.get(queryId) === handle) this.running.delete(queryId)
    }
  }

  cancel(queryId: string): boolean {
    const handle = this.running.get(queryId)
    if (!handle) return false
    handle.stop()
    this.running.delete(queryId)
    return true
  }

  cancelAll(): void {
    for (const id of [...this.running.keys()]) this.cancel(id)
  }
}

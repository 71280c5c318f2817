/**
 * Issue 51's "intermittent unhandled rejection in simulate on damaged sessions, under load":
 * the simulation's worker fails on a damaged chunk while the main thread has not yet reached
 * the line that observes the failure (it yields a turn, then reads the statics). Under load the
 * main thread is descheduled long enough for the worker's message to come first; Node then
 * reports the rejection as unhandled and the CLI prints a stack. Here the order is forced: the
 * main thread is held while the worker fails.
 */
import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { StrideError } from '../../shared/errors'
import { hierarchySchema } from '../../shared/schemas'
import { openDb } from '../store/open-db'
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from '../store/session-writer'
import { taskPool } from '../workers/run-worker'
import { checkConfig, parseLevels } from './hierarchy-flags'
import type { Io } from './io'
import { simulateAndPrint } from './simulate-command'

const dir = mkdtempSync(join(tmpdir(), 'stride-simulate-race-'))

/** Two full chunks of one point walking an array; the first chunk's bytes flipped (found when the worker decodes it). */
function damagedSession(name = 'damaged.stride'): string {
  const path = join(dir, name)
  const w = new SessionWriter(path, { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
  const table: PointRecord[] = [{ idx: 0, pc: 0x401000, kind: 0, accesses: 0, firstAddress: 0 }]
  for (let c = 0; c < 2; c++) {
    const n = MAX_STORED_CHUNK
    table[0]!.accesses += n
    w.appendChunk(n, new Uint32Array(n), Float64Array.from({ length: n }, (_, i) => 0x1000000 * (c + 1) + i * 8), new Uint16Array(n).fill(8), table)
  }
  w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  const db = openDb(path)
  const row = db.prepare('SELECT data FROM trace_chunks WHERE seq = 0').get() as { data: Buffer }
  const data = Buffer.from(row.data)
  data[data.length >> 1]! ^= 0x10
  db.prepare('UPDATE trace_chunks SET data = ? WHERE seq = 0').run(data)
  db.close()
  return path
}

const quiet: Io = { out: () => {}, err: () => {}, progress: () => {} }

/** Blocks this thread (as a descheduled process is), letting worker threads run. */
function hold(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Resolves once the pool's workers are all idle again (the task settled), or after `ms`. */
async function poolIdle(ms: number): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until && taskPool.idleCount < taskPool.size) await new Promise((r) => setTimeout(r, 20))
}

describe('simulate on a damaged session, its worker failing first', () => {
  afterAll(() => taskPool.retireIdle())

  it('the failure is one clean error, never an unhandled rejection', async () => {
    const path = damagedSession()
    const config = checkConfig(hierarchySchema, { levels: parseLevels(['L1:32K:8:64']) }, 'test')
    // A worker ready, as `stride simulate` warms one while it parses its arguments.
    taskPool.warm()
    hold(1000)
    const unhandled: unknown[] = []
    const note = (e: unknown) => void unhandled.push(e)
    process.on('unhandledRejection', note)
    try {
      // Started from a check-phase callback, so the event loop passes its poll phase (where the
      // worker's message is delivered) before simulateAndPrint's own next turn.
      const outcome = await new Promise<unknown>((settle) =>
        setImmediate(() => {
          const simulated = simulateAndPrint(path, [config], { baseline: false, poolSize: 1, json: false }, quiet)
          simulated.then(settle, settle)
          // A few microtask turns first: the pool hands the task to its worker in one.
          void Promise.resolve()
            .then(() => undefined)
            .then(() => undefined)
            .then(() => hold(2000))
        })
      )
      expect(outcome).toBeInstanceOf(StrideError)
      expect((outcome as Error).message).toMatch(/damaged\.stride is damaged at chunk 1 of 2/)
      // Any rejection left unobserved is reported by now.
      await new Promise((r) => setTimeout(r, 100))
      expect(unhandled.map((e) => (e instanceof Error ? e.message : String(e)))).toEqual([])
    } finally {
      process.off('unhandledRejection', note)
    }
  }, 30_000)

  it('a session the reports cannot read either: its error, the worker stopped and its failure observed', async () => {
    const path = damagedSession('unreadable.stride')
    // A data structure whose read count is not a number: the JSON report's statics cannot be read.
    const db = openDb(path)
    db.prepare("INSERT INTO variables (name, kind, reads, writes) VALUES ('A', 'global', 'many', 0)").run()
    db.close()
    const config = checkConfig(hierarchySchema, { levels: parseLevels(['L1:32K:8:64']) }, 'test')
    const unhandled: unknown[] = []
    const note = (e: unknown) => void unhandled.push(e)
    process.on('unhandledRejection', note)
    try {
      const outcome = await simulateAndPrint(path, [config], { baseline: false, poolSize: 1, json: true }, quiet).then(() => null, (e: unknown) => e)
      expect(outcome).toBeInstanceOf(StrideError)
      expect((outcome as Error).message).toMatch(/unexpected value in variables\.reads/)
      // The worker's own failure (the damaged chunk) is in by now, or the test waits for it.
      await poolIdle(10_000)
      await new Promise((r) => setTimeout(r, 100))
      expect(unhandled.map((e) => (e instanceof Error ? e.message : String(e)))).toEqual([])
    } finally {
      process.off('unhandledRejection', note)
    }
  }, 30_000)
})

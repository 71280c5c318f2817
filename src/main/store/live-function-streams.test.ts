/**
 * The functions' stream statistics kept while a trace is written (LiveFunctionStreams fed by
 * the session writer's background chunks) equal computeFunctionStreams over the stored
 * trace, row for row; and finish refuses (null, with the reason) whenever they could differ.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LiveFunctionStreams } from './live-function-streams'
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from './session-writer'
import { computeFunctionStreams } from './stream-store'

const dir = mkdtempSync(join(tmpdir(), 'stride-live-streams-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const META = { program: 'p', args: [], backend: 'valgrind' as const, functions: [], createdAt: '2026-11-25' }
const BATCH = 1 << 16
const DONE = { partial: false, stopReason: 'completed' as const, stopMessage: null, hasDebugInfo: false, debugInfoHint: null }

/** Point p's function: a few functions, one point in none (null: "(unknown)"), named out of order. */
const functionOf = (p: number): string | null => (p === 4 ? null : ['zeta', 'alpha', 'mid'][p % 3]!)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Writes `total` accesses in the tracer's batches (a new point every batch, strided and random
 * addresses), chunks fed to `live` whose functions arrive late; returns the point functions.
 */
async function write(w: SessionWriter, live: LiveFunctionStreams, total: number): Promise<Array<string | null>> {
  w.feedChunks(live)
  w.encodeInBackground()
  const table: PointRecord[] = []
  let x = 99
  for (let done = 0; done < total; done += BATCH) {
    const n = Math.min(BATCH, total - done)
    const points = new Uint32Array(n)
    const addresses = new Float64Array(n)
    const sizes = new Uint16Array(n)
    const known = 3 + Math.floor(done / BATCH)
    while (table.length < known) table.push({ idx: table.length, pc: 0x401000 + table.length * 4, kind: 0, accesses: 0, firstAddress: 0 })
    for (let i = 0; i < n; i++) {
      const p = (done + i) % known
      x = (x * 1103515245 + 12345) >>> 0
      points[i] = p
      addresses[i] = p % 2 === 0 ? 0x10000 + (done + i) * 8 * (1 + (p % 5)) : 0x7f0000000000 + (x % 4096) * 8
      sizes[i] = 1 << (p % 4)
      table[p]!.accesses++
    }
    w.appendChunk(n, points, addresses, sizes, table)
    if (w.backlogged) await w.ready()
  }
  await w.commitAllInBackground()
  return table.map((p) => functionOf(p.idx))
}

/** Functions known late, as a library's symbols are while the program runs. */
const slowFunctions = async (points: readonly PointRecord[], from: number) => {
  await sleep(5)
  return points.slice(from).map((p) => functionOf(p.idx))
}

describe('live function stream statistics', () => {
  it('equal computeFunctionStreams over the stored trace, in its row order', async () => {
    const w = new SessionWriter(join(dir, 'live.stride'), META)
    const live = new LiveFunctionStreams(slowFunctions)
    const pointFunction = await write(w, live, 4 * MAX_STORED_CHUNK + 777)
    const expected = await computeFunctionStreams(w.db, pointFunction)
    const got = await live.finish(pointFunction, w.committedEvents)
    expect(live.reason).toBeNull()
    expect(expected.map((f) => f.function)).toEqual(['zeta', 'alpha', 'mid', '(unknown)'])
    expect(JSON.stringify(got)).toBe(JSON.stringify(expected))
    w.finish(DONE)
  })

  it('refuses when a point\'s function differs after the trace, or not every access was fed', async () => {
    const renamed = new LiveFunctionStreams(slowFunctions)
    const w = new SessionWriter(join(dir, 'renamed.stride'), META)
    const pointFunction = await write(w, renamed, 2 * MAX_STORED_CHUNK)
    expect(await renamed.finish(pointFunction.map((f, p) => (p === 4 ? 'libfoo_fn' : f)), w.committedEvents)).toBeNull()
    expect(renamed.reason).toMatch(/point 4 was in null while the trace ran, in libfoo_fn after/)
    w.finish(DONE)
    const short = new LiveFunctionStreams(slowFunctions)
    const w2 = new SessionWriter(join(dir, 'short.stride'), META)
    await write(w2, short, 2 * MAX_STORED_CHUNK)
    expect(await short.finish(pointFunction, w2.committedEvents + 1)).toBeNull()
    expect(short.reason).toMatch(/accesses were fed/)
    w2.finish(DONE)
  })

  it('a failed feed (symbols unreadable) leaves the trace whole and finish refusing', async () => {
    const w = new SessionWriter(join(dir, 'failed.stride'), META)
    const live = new LiveFunctionStreams(async () => Promise.reject(new Error('no ELF')))
    const pointFunction = await write(w, live, 3 * MAX_STORED_CHUNK)
    expect(w.committedEvents).toBe(3 * MAX_STORED_CHUNK)
    expect(await live.finish(pointFunction, w.committedEvents)).toBeNull()
    expect(live.reason).toBe('no ELF')
    w.finish(DONE)
  })
})

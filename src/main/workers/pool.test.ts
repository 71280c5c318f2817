import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { WorkerPool, type TaskProgress } from './pool'
import { WorkerSlots } from './worker-slots'

/**
 * A stand-in task worker speaking the pool's protocol: 'report' answers with its input and the
 * worker's thread id, 'simulate' ticks progress until told to stop, 'query' spins without ever
 * yielding (only terminate ends it; the query 'poll' watches the shared stop flag, and ends
 * when it names the task), 'objects' kills its own thread, 'advice' fails. A
 * 'simulate' with \`withRows\` hands out two runs ahead of its result instead.
 */
const STAND_IN = `
const { parentPort, threadId } = require('node:worker_threads')
const stops = new Set()
parentPort.on('message', (m) => {
  if (m.type === 'stop') { stops.add(m.id); return }
  const post = (x) => parentPort.postMessage({ id: m.id, ...x })
  if (m.kind === 'report') post({ type: 'done', result: { input: m.input, thread: threadId } })
  else if (m.kind === 'advice') post({ type: 'error', message: 'No run 9 in this session; pick one of 1, 2.', code: 'not-found' })
  else if (m.kind === 'simulate' && m.input.withRows) {
    post({ type: 'partial', value: { index: 0, run: 7 } })
    post({ type: 'partial', value: { index: 1, run: 8 } })
    post({ type: 'done', result: { runs: [7, 8], accesses: 20, cancelled: false } })
  } else if (m.kind === 'simulate') {
    let events = 0
    const tick = () => {
      if (stops.has(m.id)) return post({ type: 'done', result: { runs: [], accesses: events, cancelled: true } })
      events += 10
      post({ type: 'progress', phase: 'simulating', events, total: null })
      setTimeout(tick, 5)
    }
    tick()
  } else if (m.kind === 'query' && m.input.query === 'poll') {
    while (Atomics.load(m.stopFlag, 0) !== m.id) {}
    post({ type: 'done', result: { sawStop: !stops.has(m.id), thread: threadId } })
  } else if (m.kind === 'query') { for (;;) {} }
  else if (m.kind === 'objects') process.exit(3)
})`

const pools: WorkerPool[] = []
// A stopped stand-in winds down within milliseconds, but on a loaded machine its thread may
// take far longer to run at all: a short grace would terminate it and fail the wrong way.
function pool(max = 2, options: { keepWarm?: number; idleMs?: number; stopGraceMs?: number } = {}): { pool: WorkerPool; slots: WorkerSlots } {
  const slots = new WorkerSlots(max)
  const p = new WorkerPool({ spawn: () => new Worker(STAND_IN, { eval: true }), slots, stopGraceMs: 5_000, ...options })
  pools.push(p)
  return { pool: p, slots }
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()))
})

const report = (p: WorkerPool, run: number) => p.run('report', { session: 's', run }).result as Promise<unknown> as Promise<{ input: unknown; thread: number }>

describe('warm worker pool', () => {
  it('a task whose input cannot be sent to a worker fails in its result, its slot freed; never an unhandled rejection', async () => {
    const { pool: p, slots } = pool(1)
    const unhandled: unknown[] = []
    const note = (e: unknown) => void unhandled.push(e)
    process.on('unhandledRejection', note)
    try {
      const bad = p.run('report', { session: 's', run: 1, notData: () => 0 } as never).result
      await expect(bad).rejects.toThrow(/the report task could not be handed to its worker \(.*could not be cloned/)
      expect(slots.running).toBe(0)
      expect((await report(p, 2)).input).toEqual({ session: 's', run: 2 })
      await new Promise((r) => setTimeout(r, 50))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', note)
    }
  })

  it("hands a task's partial results to the caller, in order, before its result", async () => {
    const { pool: p } = pool()
    const seen: unknown[] = []
    const h = p.run('simulate', { session: 's', configs: [], withRows: true }, undefined, (pending) => seen.push(pending))
    const result = await h.result.then((r) => ({ r, seenBefore: seen.length }))
    expect(seen).toEqual([{ index: 0, run: 7 }, { index: 1, run: 8 }])
    expect(result.seenBefore).toBe(2)
    expect(result.r.runs).toEqual([7, 8])
  })

  it('reuses one warm worker for tasks in sequence, and answers each with its own result', async () => {
    const { pool: p, slots } = pool()
    p.warm()
    expect(p.size).toBe(1)
    const first = await report(p, 1)
    const second = await report(p, 2)
    expect(first.input).toEqual({ session: 's', run: 1 })
    expect(second.input).toEqual({ session: 's', run: 2 })
    expect(second.thread).toBe(first.thread)
    expect(p.size).toBe(1)
    expect(slots.running).toBe(0)
  })

  it('ends idle workers on retireIdle, leaves a busy one, and stays open for the next task', async () => {
    const { pool: p } = pool(2)
    const a = p.run('simulate', { session: 's', configs: [] })
    const b = p.run('simulate', { session: 's', configs: [] })
    await new Promise((r) => setTimeout(r, 50))
    a.stop()
    await expect(a.result).resolves.toMatchObject({ cancelled: true })
    expect(p.size).toBe(2)
    p.retireIdle()
    expect(p.size).toBe(1)
    b.stop()
    await expect(b.result).resolves.toMatchObject({ cancelled: true })
    p.retireIdle()
    expect(p.size).toBe(0)
    await expect(report(p, 2)).resolves.toMatchObject({ input: { session: 's', run: 2 } })
    expect(p.size).toBe(1)
  })

  it('runs tasks side by side up to the slots, the rest waiting their turn', async () => {
    const { pool: p, slots } = pool(2)
    const a = p.run('simulate', { session: 's', configs: [] })
    const b = p.run('simulate', { session: 's', configs: [] })
    const c = report(p, 3)
    await new Promise((r) => setTimeout(r, 50))
    expect(slots.running).toBe(2)
    expect(slots.waiting).toBe(1)
    a.stop()
    await expect(a.result).resolves.toMatchObject({ cancelled: true })
    await expect(c).resolves.toMatchObject({ input: { run: 3 } })
    b.stop()
    await b.result
    expect(p.size).toBe(2)
    expect(slots.running).toBe(0)
  })

  it('passes progress through, and a stopped task that winds down keeps its worker', async () => {
    const { pool: p } = pool()
    const seen: TaskProgress[] = []
    const sim = p.run('simulate', { session: 's', configs: [] }, (progress) => {
      seen.push(progress)
      if (seen.length === 3) sim.stop()
    })
    const done = await sim.result
    expect(done.cancelled).toBe(true)
    expect(seen.slice(0, 3).map((s) => s.events)).toEqual([10, 20, 30])
    expect(seen[0]!.phase).toBe('simulating')
    expect(p.size).toBe(1)
  })

  it('terminates a worker that ignores stop, fails its task as cancelled, and starts afresh', async () => {
    const { pool: p, slots } = pool(2, { stopGraceMs: 100 })
    const before = await report(p, 1)
    const stuck = p.run('query', { session: 's', run: null, query: 'q', reduction: 'sum' })
    await new Promise((r) => setTimeout(r, 30))
    stuck.stop()
    await expect(stuck.result).rejects.toMatchObject({ code: 'cancelled' })
    expect(slots.running).toBe(0)
    const after = await report(p, 2)
    expect(after.thread).not.toBe(before.thread)
  })

  it('a task that never yields sees its stop through the shared flag, and keeps its worker', async () => {
    const { pool: p } = pool(2, { stopGraceMs: 60_000 })
    const before = await report(p, 1)
    const busy = p.run('query', { session: 's', run: null, query: 'poll', reduction: 'sum' })
    await new Promise((r) => setTimeout(r, 30))
    busy.stop()
    // The stop message was never read (the task never yielded); the flag alone ended it.
    expect(await busy.result).toEqual({ sawStop: true, thread: before.thread })
    expect((await report(p, 2)).thread).toBe(before.thread)
  })

  it("a task's own error reaches the caller with its code and the worker stays", async () => {
    const { pool: p } = pool()
    const warm = await report(p, 1)
    await expect(p.run('advice', { session: 's', run: 9, level: null }).result).rejects.toMatchObject({ code: 'not-found', message: 'No run 9 in this session; pick one of 1, 2.' })
    expect((await report(p, 2)).thread).toBe(warm.thread)
  })

  it('a worker that dies fails its task as an internal error, and the next task gets a new worker', async () => {
    const { pool: p, slots } = pool()
    await expect(p.run('objects', { session: 's', options: {} as never }).result).rejects.toMatchObject({ code: 'internal', message: expect.stringMatching(/stopped unexpectedly \(exit 3\)/) })
    expect(slots.running).toBe(0)
    await expect(report(p, 1)).resolves.toMatchObject({ input: { run: 1 } })
  })

  it('a task stopped while waiting for a slot never starts', async () => {
    const { pool: p, slots } = pool(1)
    const busy = p.run('simulate', { session: 's', configs: [] })
    const waiting = p.run('report', { session: 's', run: 1 })
    await new Promise((r) => setTimeout(r, 20))
    waiting.stop()
    busy.stop()
    await expect(waiting.result).rejects.toMatchObject({ code: 'cancelled' })
    await busy.result
    expect(slots.running).toBe(0)
  })

  it('ends idle workers beyond keepWarm after idleMs, keeping the warm one', async () => {
    // idleMs well above the time two stops take on a loaded machine: both workers are still
    // there when the second stop returns (30 ms let the first one retire meanwhile).
    const { pool: p } = pool(3, { keepWarm: 1, idleMs: 1000 })
    const a = p.run('simulate', { session: 's', configs: [] })
    const b = p.run('simulate', { session: 's', configs: [] })
    await new Promise((r) => setTimeout(r, 20))
    a.stop()
    b.stop()
    await Promise.all([a.result, b.result])
    expect(p.size).toBe(2)
    // Retiring takes a terminate, slow on a loaded machine: wait for it rather than a fixed time.
    await vi.waitFor(() => expect(p.size).toBe(1), { timeout: 10_000 })
    expect(p.idleCount).toBe(1)
  })

  it('after close, running tasks fail as cancelled and new ones do not start', async () => {
    const { pool: p } = pool()
    const running = p.run('simulate', { session: 's', configs: [] })
    await new Promise((r) => setTimeout(r, 20))
    await p.close()
    await expect(running.result).rejects.toMatchObject({ code: 'cancelled' })
    await expect(report(p, 1)).rejects.toMatchObject({ code: 'cancelled' })
    expect(p.size).toBe(0)
  })
})

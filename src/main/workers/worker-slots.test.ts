import { describe, expect, it } from 'vitest'
import { WorkerSlots } from './worker-slots'

describe('worker slots (web mode with many clients)', () => {
  it('never runs more than max at once; waiters start in order as slots free', async () => {
    const slots = new WorkerSlots(2)
    const started: number[] = []
    const jobs = [0, 1, 2, 3, 4].map((i) => slots.acquire().then(() => started.push(i)))
    await Promise.resolve()
    await Promise.resolve()
    expect(started).toEqual([0, 1])
    expect(slots.running).toBe(2)
    expect(slots.waiting).toBe(3)
    slots.release()
    await jobs[2]
    expect(started).toEqual([0, 1, 2])
    expect(slots.running).toBe(2)
    slots.release()
    slots.release()
    await Promise.all(jobs)
    expect(started).toEqual([0, 1, 2, 3, 4])
    slots.release()
    slots.release()
    expect(slots.running).toBe(0)
  })
})

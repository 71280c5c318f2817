import { describe, expect, it } from 'vitest'
import { DeferredObserver, MAX_KEPT_ACCESSES, MAX_KEPT_CALLS } from './deferred-observer'
import type { ToolObserver } from './tool-observer'

/** An observer that writes down every call, batches as one line per access. */
function recorder(): ToolObserver & { log: string[] } {
  const log: string[] = []
  return {
    log,
    wantsInstructions: true,
    programLoaded: (base) => log.push(`program ${base}`),
    libraryLoaded: (path, base) => log.push(`library ${path} ${base}`),
    enterFunction: (entry, sp, thread) => log.push(`enter ${entry} ${sp} ${thread}`),
    leaveFunction: (sp, thread) => log.push(`leave ${sp} ${thread}`),
    allocated: (e, frames) => log.push(`alloc ${e.ptr} ${e.size} ${e.old} ${e.site} [${frames.join(',')}]`),
    freed: (ptr) => log.push(`free ${ptr}`),
    attribute: (point, kind, address, thread) => log.push(`access ${point} ${kind} ${address} ${thread}`),
    attributeBatch: (points, addresses, threads, from, to, kindOf) => {
      for (let i = from; i < to; i++) log.push(`access ${points[i]} ${kindOf[points[i]!]} ${addresses[i]} ${threads[i]}`)
    }
  }
}

/** A tracer's calls, with its batch arrays reused (overwritten) after each batch, as ToolTrace does. */
function drive(o: ToolObserver, seed: number): void {
  let x = seed
  const rand = (n: number) => ((x = (x * 1103515245 + 12345) >>> 0) >>> 8) % n
  const points = new Uint32Array(64)
  const addresses = new Float64Array(64)
  const threads = new Uint16Array(64)
  const kinds = Uint8Array.from({ length: 16 }, (_, p) => p % 3)
  o.programLoaded(0x400000)
  for (let step = 0; step < 300; step++) {
    const r = rand(8)
    if (r === 0) o.enterFunction(rand(1000), rand(1 << 20), rand(3))
    else if (r === 1) o.leaveFunction(rand(1 << 20), rand(3))
    else if (r === 2) {
      const frames = [rand(100), rand(100)]
      o.allocated({ kind: 'alloc', ptr: rand(1 << 30), size: rand(4096), old: 0, site: rand(100) }, frames)
      frames[0] = -1 // the tracer's array may change afterwards
    } else if (r === 3) o.freed(rand(1 << 30))
    else if (r === 4) o.attribute(rand(16), rand(3), rand(1 << 30), rand(3))
    else if (r === 5) o.libraryLoaded(`/lib/l${rand(4)}.so`, rand(1 << 30))
    else {
      const from = rand(32)
      const to = from + rand(32)
      for (let i = from; i < to; i++) {
        points[i] = rand(16)
        addresses[i] = rand(1 << 30) * 8
        threads[i] = rand(3)
      }
      o.attributeBatch(points, addresses, threads, from, to, kinds)
      points.fill(99) // reused for the next batch
      addresses.fill(-1)
    }
  }
}

describe('DeferredObserver', () => {
  it('replays every call in order, as the observer would have taken them directly', () => {
    for (const seed of [1, 2, 3, 42]) {
      const direct = recorder()
      drive(direct, seed)
      const later = recorder()
      const deferred = new DeferredObserver()
      drive(deferred, seed)
      expect(later.log).toEqual([])
      deferred.replayInto(later)
      expect(later.log).toEqual(direct.log)
      expect(deferred.keptAccesses).toBe(0)
    }
  })

  it('keeps nothing for no observer, and says when it holds as much as it may', () => {
    const deferred = new DeferredObserver()
    drive(deferred, 5)
    expect(deferred.keptAccesses).toBeGreaterThan(0)
    deferred.replayInto(null)
    expect(deferred.keptAccesses).toBe(0)

    const points = new Uint32Array(1 << 16)
    const addresses = new Float64Array(1 << 16)
    const threads = new Uint16Array(1 << 16)
    const kinds = new Uint8Array(1)
    expect(deferred.full).toBe(false)
    for (let n = 0; n < MAX_KEPT_ACCESSES; n += 1 << 16) {
      expect(deferred.full).toBe(false)
      deferred.attributeBatch(points, addresses, threads, 0, 1 << 16, kinds)
    }
    expect(deferred.full).toBe(true)

    const calls = new DeferredObserver()
    for (let n = 0; n < MAX_KEPT_CALLS; n++) calls.enterFunction(n, n, 0)
    expect(calls.full).toBe(true)
  })
})

/**
 * One owner of `frida` per process: the availability check, the process list and traces
 * all go through FridaOwner to one FridaOwnerHost, which loads `frida` once. The host runs
 * in-process here (the owner process only wraps it), with the Frida double and
 * a real spin process started outside Node's child tracking.
 */
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StrideError } from '../../../shared/errors'
import type { FridaOwnerReply, FridaOwnerRequest } from './attach-protocol'
import { FRIDA_INSTALL_HINT, loadFrida, type FridaModule } from './frida-api'
import { FridaOwner, inProcessChannel, type AttachProgress, type OwnerChannel } from './frida-owner'
import { FridaOwnerHost } from './frida-owner-host'
import { processAlive } from './frida-tracer'
import { killDetached, startDetached } from './testing/detached-target'
import { fridaDouble, standardAgent, type DoubleOptions } from './testing/frida-double'

const SPIN = join(__dirname, '..', '..', '..', '..', 'resources', 'examples', 'build', 'spin')
let pid = 0

beforeAll(async () => {
  if (!existsSync(SPIN)) throw new Error(`${SPIN} is missing: run "npm run examples" first`)
  pid = await startDetached(SPIN)
})
afterAll(() => killDetached())

/** An owner whose host loads the double, counting loads and the channel's busy state. */
function owner(double: DoubleOptions = {}, load?: () => Promise<FridaModule>) {
  const { frida, sessions } = fridaDouble(double)
  const loads = { count: 0 }
  const busy: boolean[] = []
  let connects = 0
  const o = new FridaOwner(() => {
    connects++
    const channel = inProcessChannel((post) => new FridaOwnerHost(post, { frida: () => (loads.count++, load ? load() : Promise.resolve(frida)), agentSource: () => '/* agent */', stopTimeoutMs: 200 }))
    return { ...channel, busy: (b) => busy.push(b) }
  })
  return { o, sessions, loads, busy, connects: () => connects }
}

const out = () => join(mkdtempSync(join(tmpdir(), 'stride-owner-')), 's.stride')
const input = (maxEvents: number | null) => ({ target: { kind: 'attach' as const, pid }, functions: ['sumfunc'], maxEvents, maxSeconds: null, sampling: { kind: 'complete' as const }, trackHeap: false, out: out() })

describe('FridaOwner', () => {
  it('check, process list and a trace share one owner, which loads frida once', async () => {
    const { o, sessions, loads, busy, connects } = owner({ behaviour: standardAgent(4) })
    await o.check()
    const list = await o.listProcesses()
    expect(list.fridaMissing).toBeNull()
    const progress: AttachProgress[] = []
    const done = await o.trace(input(1500), (p) => progress.push(p)).result
    expect(done).toMatchObject({ type: 'trace-done', events: 1500, stopReason: 'max-events', pid, targetAlive: true })
    expect(progress.some((p) => p.phase === 'tracing')).toBe(true)
    expect(sessions[0]!.detachedByHost).toBe(true)
    expect(processAlive(pid)).toBe(true)
    expect(loads.count).toBe(1)
    expect(connects()).toBe(1)
    // Busy (keeping the process alive) only while a request is pending.
    expect(busy.at(-1)).toBe(false)
  })

  it('Frida missing: check gives the install hint; the list comes from /proc and says why', async () => {
    const missing = () => loadFrida(() => Promise.reject(Object.assign(new Error("Cannot find package 'frida'"), { code: 'ERR_MODULE_NOT_FOUND' })))
    const { o } = owner({}, missing)
    const e = await o.check().catch((x: unknown) => x)
    expect(e).toBeInstanceOf(StrideError)
    expect(e).toMatchObject({ message: FRIDA_INSTALL_HINT, code: 'tool-missing' })
    const list = await o.listProcesses()
    expect(list).toMatchObject({ source: 'proc', fridaMissing: FRIDA_INSTALL_HINT })
    expect(list.processes.some((p) => p.pid === pid)).toBe(true)
    const failed = await o.trace(input(100), () => {}).result.catch((x: unknown) => x)
    expect(failed).toMatchObject({ message: FRIDA_INSTALL_HINT, session: null })
  })

  it('stop ends a running trace in the owner; what was recorded is kept', async () => {
    const { o, sessions } = owner({ behaviour: standardAgent(1000) })
    const handle = o.trace(input(null), (p) => {
      if (p.events > 0) handle.stop()
    })
    const done = await handle.result
    expect(done.stopReason).toBe('cancelled')
    expect(done.events).toBeGreaterThan(0)
    expect(sessions[0]!.detachedByHost).toBe(true)
  })

  it('the owner dying fails what is pending, and no second owner is started', async () => {
    let fail: (m: string) => void = () => {}
    let connects = 0
    const o = new FridaOwner((): OwnerChannel => {
      connects++
      return { post: (_r: FridaOwnerRequest) => {}, onReply: (_h: (r: FridaOwnerReply) => void) => {}, onFailure: (h) => void (fail = h), busy: () => {} }
    })
    const pending = o.check()
    fail('the Frida process stopped unexpectedly (exit 1)')
    await expect(pending).rejects.toThrow('the Frida process stopped unexpectedly (exit 1)')
    await expect(o.listProcesses()).rejects.toThrow('the Frida process stopped unexpectedly (exit 1)')
    await expect(o.trace(input(1), () => {}).result).rejects.toThrow(/stopped unexpectedly/)
    expect(connects).toBe(1)
  })
})

/** The attach part of the API through the real backend service (validation and handlers). */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProcessInspection, ProcessList } from '../../shared/domain'
import { FRIDA_INSTALL_HINT } from '../tracing/frida/frida-api'
import { FridaOwner, inProcessChannel, useFridaOwner } from '../tracing/frida/frida-owner'
import { FridaOwnerHost } from '../tracing/frida/frida-owner-host'
import { fridaImportable } from '../tracing/frida/testing/frida-importable'
import { createStrideService } from './stride-service'

const SPIN = join(__dirname, '..', '..', '..', 'resources', 'examples', 'build', 'spin')
// This test file's process has one Frida owner: this thread, through the same host the
// owner worker runs (the worker bundle needs a build; unit tests do not).
useFridaOwner(new FridaOwner(() => inProcessChannel((post) => new FridaOwnerHost(post))))
const service = createStrideService()
let child: ChildProcess

beforeAll(async () => {
  child = spawn(SPIN, [], { stdio: ['ignore', 'pipe', 'ignore'] })
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
})
afterAll(async () => {
  child.kill('SIGKILL')
  await service.dispose()
})

describe('attach API', () => {
  it('listProcesses filters on the backend; inspectProcess lists the functions', async () => {
    const list = (await service.call('listProcesses', { filter: `${child.pid} spin` })) as ProcessList
    expect(list.processes.map((p) => p.pid)).toEqual([child.pid])
    expect(list.fridaMissing === null).toBe(fridaImportable())
    const inspected = (await service.call('inspectProcess', { pid: child.pid })) as ProcessInspection
    expect(inspected.functions.some((f) => f.name === 'sumfunc')).toBe(true)
  })

  it('validates startAttach before anything runs', async () => {
    await expect(service.call('startAttach', { target: { kind: 'attach', pid: child.pid }, functions: [] })).rejects.toThrow(
      'Invalid input to startAttach (functions): choose at least one function to trace.'
    )
    await expect(service.call('startAttach', { target: { kind: 'attach', pid: child.pid }, functions: ['f'], sampling: { kind: 'periodic', periodMs: 0, intervalMs: 5 } })).rejects.toThrow(
      /Invalid input to startAttach \(sampling.periodMs\)/
    )
    await expect(service.call('startAttach', { target: { kind: 'attach', pid: process.pid }, functions: ['f'] })).rejects.toThrow('Stride cannot trace itself; pick another process.')
    await expect(service.call('startAttach', { target: { kind: 'attach', pid: child.pid }, functions: ['nope'] })).rejects.toMatchObject({ code: 'not-found' })
    await expect(service.call('inspectProcess', { pid: 4194000 })).rejects.toThrow(/Process 4194000 is gone/)
  })

  it('Start without Frida answers at once with the install hint', async (ctx) => {
    if (fridaImportable()) ctx.skip('frida is installed here: the missing-Frida path cannot be shown')
    await expect(service.call('startAttach', { target: { kind: 'attach', pid: child.pid }, functions: ['sumfunc'] })).rejects.toThrow(FRIDA_INSTALL_HINT)
  })
})

import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ProcessEntry } from '../../../shared/domain'
import { filterProcesses, listProcesses, listProcFs, parseCmdline, parsePasswd, parseStatus, processByName } from './process-list'
import { inspectProcess, rankFunctions } from './process-inspect'
import { fridaDouble } from './testing/frida-double'

const SPIN = join(__dirname, '..', '..', '..', '..', 'resources', 'examples', 'build', 'spin')

describe('/proc parsers', () => {
  it('status, cmdline, passwd', () => {
    expect(parseStatus('Name:\tspin\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t1000\t1000\t1000\n')).toEqual({ name: 'spin', uid: 1000 })
    expect(parseStatus('garbage')).toBeNull()
    expect(parseCmdline(Buffer.from('./spin\u000010\u0000'))).toBe('./spin 10')
    expect(parsePasswd('root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000::/home/ann:/bin/sh\n').get(1000)).toBe('ann')
  })

  it('filter: every word in PID, name, user or command', () => {
    const list: ProcessEntry[] = [
      { pid: 10, name: 'spin', user: 'ann', command: '/x/spin 5', self: false },
      { pid: 11, name: 'bash', user: 'root', command: '-bash', self: false }
    ]
    expect(filterProcesses(list, 'SPIN ann').map((p) => p.pid)).toEqual([10])
    expect(filterProcesses(list, '11').map((p) => p.pid)).toEqual([11])
    expect(filterProcesses(list, '  ')).toHaveLength(2)
  })
})

describe('process list and inspection on this machine', () => {
  it('lists a running example with its PID, user and command line; marks Stride itself', async () => {
    const child = spawn(SPIN, ['999999999'], { stdio: 'ignore' })
    try {
      await new Promise((r) => setTimeout(r, 100))
      const list = listProcFs()
      const me = list.find((p) => p.pid === child.pid)!
      expect(me).toMatchObject({ name: 'spin', command: `${SPIN} 999999999`, self: false })
      expect(me.user).toMatch(/\S/)
      expect(list.find((p) => p.pid === process.pid)!.self).toBe(true)

      const inspected = await inspectProcess(child.pid!, null)
      expect(inspected.module).toBe(SPIN)
      expect(inspected.modules.find((m) => m.main)!.path).toBe(SPIN)
      expect(inspected.modules.some((m) => /libc/.test(m.path))).toBe(true)
      // The one function with a loop and source lines comes first: a good first guess.
      expect(inspected.functions[0]).toMatchObject({ name: expect.stringMatching(/^(sumfunc|main)$/), loopDepth: expect.any(Number) })
      expect(inspected.functions[0]!.loopDepth).toBeGreaterThanOrEqual(1)
      expect(inspected.functions.map((f) => f.name)).toContain('sumfunc')
      expect(inspected.hasDebugInfo).toBe(true)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('without Frida the list comes from /proc with the reason; with Frida from its enumeration', async () => {
    const none = await listProcesses(() => Promise.reject(new Error('not installed')))
    expect(none.source).toBe('proc')
    expect(none.fridaMissing).toBe('not installed')
    expect(none.processes.some((p) => p.pid === process.pid)).toBe(true)
    const { frida } = fridaDouble()
    const withFrida = await listProcesses(async () => ({
      ...frida,
      getLocalDevice: async () => ({ ...(await frida.getLocalDevice()), enumerateProcesses: async () => [{ pid: process.pid, name: 'node', parameters: { user: 'me' } }] })
    }))
    expect(withFrida).toEqual({ source: 'frida', fridaMissing: null, processes: [expect.objectContaining({ pid: process.pid, name: 'node', user: 'me', self: true })] })
  })

  it('ranking: runtime stubs last, functions without lines after those with, deeper loops first', () => {
    const f = (name: string, file: string | null, loopDepth: number, size = 10) => ({ name, address: '0x0', size, file, line: null, loopDepth })
    expect(rankFunctions([f('_start', 'a.c', 3), f('noline', null, 2), f('flat', 'a.c', 0, 500), f('nest', 'a.c', 2)]).map((x) => x.name)).toEqual(['nest', 'flat', 'noline', '_start'])
  })

  it('a process by name: its /proc name or executable base name; none or several says what to give', () => {
    const p = (pid: number, name: string, command: string, self = false) => ({ pid, name, user: 'u', command, self })
    const list = [p(10, 'spin', '/x/spin 5'), p(11, 'long-program-na', '/opt/long-program-name --x'), p(12, 'node', 'node cli.js', true), p(13, 'sh', 'sh -c a'), p(14, 'sh', 'sh')]
    expect(processByName(list, 'spin').pid).toBe(10)
    expect(processByName(list, 'long-program-name').pid).toBe(11)
    expect(() => processByName(list, 'node')).toThrow('No running process is named "node"; give its PID (see ps, or the Attach dialog\'s list).')
    expect(() => processByName(list, 'sh')).toThrow('2 processes are named "sh" (PIDs 13, 14); give one of them by PID.')
  })
})

/**
 * The Frida backend's control flow, against a double of the `frida` package (the real one
 * cannot be installed here) and a real running process (the spin example) for /proc.
 * Each failure Frida can raise is simulated at the API boundary.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StrideError } from '../../../shared/errors'
import { FRIDA_INSTALL_HINT, loadFrida } from './frida-api'
import { permissionAdvice, readPtraceFacts } from './ptrace-permission'
import { crashSignal, FridaTrace, resolveInProcess, type FridaDetached, type FridaTraceOptions } from './frida-tracer'
import { accessRecords, fridaDouble, standardAgent, type AgentBehaviour, type DoubleOptions, type ScriptedAgent } from './testing/frida-double'
import type { ChunkSink } from './trace-assembler'

const SPIN = join(__dirname, '..', '..', '..', '..', 'resources', 'examples', 'build', 'spin')
let child: ChildProcess
let pid = 0

beforeAll(async () => {
  if (!existsSync(SPIN)) throw new Error(`${SPIN} is missing: run "npm run examples" first`)
  child = spawn(SPIN, [], { stdio: ['ignore', 'pipe', 'ignore'] })
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
  pid = child.pid!
})
afterAll(() => {
  child.kill('SIGKILL')
})

class CountingSink implements ChunkSink {
  events = 0
  appendChunk(count: number): void {
    this.events += count
  }
}

function trace(double: DoubleOptions, options: Partial<FridaTraceOptions> = {}, sink = new CountingSink()) {
  const { frida, sessions } = fridaDouble(double)
  const t = new FridaTrace(
    { target: { kind: 'attach', pid }, functions: ['sumfunc'], maxEvents: null, maxSeconds: null, sampling: { kind: 'complete' }, trackHeap: false, ...options },
    sink,
    () => {},
    null,
    { frida: async () => frida, agentSource: () => '/* agent */', stopTimeoutMs: 200 }
  )
  return { t, sessions, sink }
}

describe('FridaTrace', () => {
  it('attaches, sends the chosen functions at their runtime addresses, stops at max events, unloads and detaches', async () => {
    const { t, sessions, sink } = trace({ behaviour: standardAgent(5) }, { maxEvents: 2500 })
    const out = await t.run()
    expect(out.stopReason).toBe('max-events')
    expect(sink.events).toBe(2500)
    const session = sessions[0]!
    const start = session.script!.posted[0]!
    expect(start).toMatchObject({ type: 'start', sampling: { kind: 'complete' }, trackHeap: false })
    if (start.type !== 'start') throw new Error('first message is start')
    // sumfunc's runtime start = load base + its link address (PIE).
    const base = out.modules.find((m) => m.path === out.program)!.base
    const sym = out.elf.functions.find((f) => f.name === 'sumfunc')!
    expect(Number(start.functions[0]!.start)).toBe(base + sym.start)
    expect(session.script!.posted.filter((m) => m.type === 'ack').length).toBeGreaterThanOrEqual(3)
    expect(session.script!.posted.some((m) => m.type === 'stop')).toBe(true)
    expect(session.script!.unloaded).toBe(true)
    expect(session.detachedByHost).toBe(true)
    expect(out.targetAlive).toBe(true)
    expect(out.functions).toEqual([{ name: 'sumfunc', samples: 0, events: 2500, done: false }])
  })

  it('Frida not installed: the one-line install hint', async () => {
    const t = new FridaTrace({ target: { kind: 'attach', pid }, functions: ['sumfunc'], maxEvents: null, maxSeconds: null, sampling: { kind: 'complete' }, trackHeap: false }, new CountingSink(), () => {}, null, {
      frida: () => loadFrida(() => Promise.reject(Object.assign(new Error("Cannot find package 'frida'"), { code: 'ERR_MODULE_NOT_FOUND' })))
    })
    await expect(t.run()).rejects.toThrow(FRIDA_INSTALL_HINT)
  })

  it('permission denied: the advice for this machine\'s ptrace facts (ptrace-permission.ts), not Frida\'s generic one', async () => {
    const { t } = trace({ attachError: new Error(`Unable to access process with pid ${pid} due to system restrictions; try \`sudo sysctl kernel.yama.ptrace_scope=0\`, or run Frida as root`) })
    const e = await t.run().catch((x: StrideError) => x)
    expect(e).toBeInstanceOf(StrideError)
    expect((e as StrideError).code).toBe('permission-denied')
    expect((e as StrideError).message).toBe(`Permission denied attaching to process ${pid}: ${permissionAdvice(readPtraceFacts(pid))}.`)
  })

  it('process gone: a PID that does not exist', async () => {
    const { frida } = fridaDouble()
    const t = new FridaTrace({ target: { kind: 'attach', pid: 2 ** 22 + 12345 }, functions: ['sumfunc'], maxEvents: null, maxSeconds: null, sampling: { kind: 'complete' }, trackHeap: false }, new CountingSink(), () => {}, null, {
      frida: async () => frida
    })
    await expect(t.run()).rejects.toMatchObject({ code: 'not-found', message: expect.stringMatching(/Process \d+ is gone/) })
  })

  it('function not found: named before anything is attached', async () => {
    const { t, sessions } = trace({}, { functions: ['no_such_function'] })
    await expect(t.run()).rejects.toMatchObject({ code: 'not-found', message: expect.stringMatching(/Function not found: "no_such_function"/) })
    expect(sessions).toHaveLength(0)
  })

  it('architecture unsupported: the agent says so, nothing is kept, the session is left', async () => {
    const { t, sessions } = trace({
      behaviour: (m, agent) => {
        if (m.type === 'start') agent.send({ type: 'fatal', code: 'architecture', message: "Stride's Frida agent traces x86-64 processes; this one is arm" })
        if (m.type === 'stop') agent.send({ type: 'stopped', lost: 0, untraced: 0 })
      }
    })
    await expect(t.run()).rejects.toThrow(/^Architecture unsupported: .*Valgrind backend/)
    expect(sessions[0]!.detachedByHost).toBe(true)
  })

  it('target exits mid-trace: what was recorded is kept, the reason says so', async () => {
    const { t, sink } = trace({
      behaviour: (m, agent) => {
        if (m.type !== 'start') return
        standardAgent(2)(m, agent)
        setTimeout(() => agent.session.detached.emit('process-terminated', null), 20)
      }
    })
    const out = await t.run()
    expect(out.stopReason).toBe('target-exited-early')
    expect(out.message).toMatch(/exited during the trace; the accesses recorded before are kept/)
    expect(sink.events).toBe(2000)
  })

  it('target crashes mid-trace: the agent names the crash, the records are kept', async () => {
    const { t, sink } = trace({
      behaviour: (m, agent) => {
        if (m.type !== 'start') return
        standardAgent(2)(m, agent)
        setTimeout(() => {
          agent.send({ type: 'crash', description: 'access-violation at 0x401000 (read of 0x0)' })
          agent.session.detached.emit('process-terminated', null)
        }, 20)
      }
    })
    const out = await t.run()
    expect(out.stopReason).toBe('target-crashed')
    expect(out.message).toMatch(/crashed \(access-violation at 0x401000 \(read of 0x0\)\); the accesses recorded before it are kept/)
    expect(sink.events).toBe(2000)
  })

  it('Frida\'s own crash report (where the platform gives one) names the crash too', async () => {
    const { t } = trace({
      behaviour: (m, agent) => {
        if (m.type !== 'start') return
        setTimeout(() => agent.session.detached.emit('process-terminated', { summary: 'SIGSEGV in sumfunc\nmore lines' }), 20)
      }
    })
    const out = await t.run()
    expect(out.stopReason).toBe('target-crashed')
    expect(out.message).toMatch(/crashed \(SIGSEGV in sumfunc\)/)
  })

  it('an agent exception after some batches: kept, stop reason error', async () => {
    const { t, sink } = trace({
      behaviour: (m, agent) => {
        if (m.type === 'start') {
          standardAgent(1)(m, agent)
          agent.message.emit({ type: 'error', description: 'TypeError: not a function' }, null)
        }
        if (m.type === 'stop') agent.send({ type: 'stopped', lost: 0, untraced: 0 })
      }
    })
    const out = await t.run()
    expect(out.stopReason).toBe('error')
    expect(out.message).toMatch(/agent failed in process \d+: TypeError: not a function/)
    expect(sink.events).toBe(1000)
  })

  it('says how many prologue accesses per call Interceptor keeps out of the trace', async () => {
    const { t } = trace({
      behaviour: (m, agent) => {
        if (m.type === 'start') agent.send({ type: 'ready', arch: 'x64', pid: 1, functions: ['sumfunc'], prologue: { sumfunc: 1 } })
        if (m.type === 'stop') agent.send({ type: 'stopped', lost: 0, untraced: 0 })
      }
    }, { maxSeconds: 0.05 })
    expect((await t.run()).message).toMatch(/sumfunc: 1 prologue access per call not recorded \(relocated by Frida's Interceptor\)/)
  })

  describe('a launched program (spawn)', () => {
    /** A spawn of `pid`'s program through the double, its output and detach notes collected. */
    const launch = (behaviour: AgentBehaviour, options: Partial<FridaTraceOptions> = {}) => {
      const double = fridaDouble({ behaviour, spawnPid: pid })
      const output: string[] = []
      const detached: FridaDetached[] = []
      const t = new FridaTrace(
        { target: { kind: 'spawn', program: SPIN, args: [] }, functions: ['sumfunc'], maxEvents: null, maxSeconds: null, sampling: { kind: 'complete' }, trackHeap: false, ...options },
        new CountingSink(),
        () => {},
        null,
        { frida: async () => double.frida, agentSource: () => '/* agent */', stopTimeoutMs: 200 },
        { onOutput: (stream, bytes) => output.push(`${stream}:${bytes.toString()}`), onDetached: (d) => detached.push(d) }
      )
      return { t, double, output, detached }
    }
    /** The program's end as Frida shows it: output, exit status, both streams' ends, then the session's end. */
    const ends = (agent: ScriptedAgent, device: ReturnType<typeof fridaDouble>['device'], code: number) => {
      device.output.emit(pid, 1, Buffer.from('result 42\n'))
      device.output.emit(pid, 2, Buffer.from('warning\n'))
      agent.send({ type: 'exit', code })
      agent.session.detached.emit('process-terminated', null)
      // The last output trails the session's end.
      setTimeout(() => {
        device.output.emit(pid, 1, Buffer.from('bye\n'))
        device.output.emit(pid, 1, Buffer.alloc(0))
        device.output.emit(pid, 2, Buffer.alloc(0))
      }, 20)
    }

    it('runs to its end: spawned with piped stdio, its output relayed in order, its exit status kept', async () => {
      let device: ReturnType<typeof fridaDouble>['device'] | null = null
      const { t, double, output, detached } = launch((m, agent) => {
        if (m.type !== 'start') return
        agent.send({ type: 'ready', arch: 'x64', pid, functions: ['sumfunc'] })
        setTimeout(() => ends(agent, device!, 3), 10)
      })
      device = double.device
      const out = await t.run()
      expect(double.spawned).toEqual([{ stdio: 'pipe' }])
      expect(out.stopReason).toBe('completed')
      expect(out.programExit).toEqual({ code: 3, signal: null })
      expect(output).toEqual(['stdout:result 42\n', 'stderr:warning\n', 'stdout:bye\n'])
      expect(detached).toEqual([])
    })

    it('still running at --max-events: said at once, it runs on, and the trace ends when it does (or kills it at the limit with afterLimit stop)', async () => {
      for (const afterLimit of ['detach', 'stop'] as const) {
        let device: ReturnType<typeof fridaDouble>['device'] | null = null
        const { t, double, output, detached } = launch(
          (m, agent) => {
            if (m.type === 'start') {
              agent.send({ type: 'ready', arch: 'x64', pid, functions: ['sumfunc'] })
              agent.sendBatch(accessRecords(Array.from({ length: 1000 }, (_, i) => [Number(m.functions[0]!.start), 0, 0x10000 + i * 8, 8])))
            } else if (m.type === 'stop') {
              agent.send({ type: 'stopped', lost: 0, untraced: 0 })
              if (afterLimit === 'detach') setTimeout(() => ends(agent, device!, 0), 30)
            }
          },
          { maxEvents: 500, afterLimit }
        )
        device = double.device
        const out = await t.run()
        expect(out.stopReason).toBe('max-events')
        if (afterLimit === 'detach') {
          expect(detached).toEqual([{ pid, reason: 'max-events' }])
          expect(out.programExit).toEqual({ code: 0, signal: null })
          expect(output).toEqual(['stdout:result 42\n', 'stderr:warning\n', 'stdout:bye\n'])
          expect(double.killed).toEqual([])
        } else {
          expect(detached).toEqual([])
          expect(double.killed).toEqual([pid])
          expect(out.programExit).toEqual({ code: null, signal: 'SIGKILL' })
        }
      }
    })
    it('still running when every function has its samples: said as the sampling\'s end, then waited for', async () => {
      let device: ReturnType<typeof fridaDouble>['device'] | null = null
      const { t, double, detached } = launch(
        (m, agent) => {
          if (m.type === 'start') {
            agent.send({ type: 'ready', arch: 'x64', pid, functions: ['sumfunc'] })
            agent.send({ type: 'sampling-done' })
          } else if (m.type === 'stop') {
            agent.send({ type: 'stopped', lost: 0, untraced: 0 })
            setTimeout(() => ends(agent, device!, 0), 30)
          }
        },
        { sampling: { kind: 'max-samples', samples: 1 } }
      )
      device = double.device
      const out = await t.run()
      expect(detached).toEqual([{ pid, reason: 'sampling' }])
      expect(out.programExit).toEqual({ code: 0, signal: null })
    })
  })

  it('the crash signal from the agent\'s exception type', () => {
    expect(crashSignal('access-violation at 0x1234 (read of 0x0)')).toBe('SIGSEGV')
    expect(crashSignal('abort at 0x7f00')).toBe('SIGABRT')
    expect(crashSignal('arithmetic at 0x10')).toBe('SIGFPE')
    expect(crashSignal('something-new at 0x10')).toBeNull()
  })

  it('seconds limit, and stop() from outside (cancel)', async () => {
    const timed = trace({ behaviour: standardAgent(1) }, { maxSeconds: 0.1 })
    expect((await timed.t.run()).stopReason).toBe('time-limit')
    const cancelled = trace({ behaviour: standardAgent(1) })
    setTimeout(() => cancelled.t.stop('cancelled', 'cancelled by the user'), 50)
    expect((await cancelled.t.run()).stopReason).toBe('cancelled')
  })

  it('convergence: the host tells the agent to stop a converged function', async () => {
    const { t, sessions } = trace(
      {
        behaviour: (m, agent) => {
          if (m.type !== 'start') return
          agent.send({ type: 'ready', arch: 'x64', pid: 1, functions: ['sumfunc'] })
          const fn = Number(m.functions[0]!.start)
          for (let call = 0; call < 3; call++) {
            const recs = Buffer.alloc(32 * 202)
            recs.writeUInt8(2, 0)
            recs.writeBigUInt64LE(BigInt(fn), 8)
            recs.writeBigUInt64LE(0x7ff000n, 16)
            for (let i = 0; i < 200; i++) {
              const o = (i + 1) * 32
              recs.writeUInt8(1, o)
              recs.writeUInt16LE(8, o + 2)
              recs.writeBigUInt64LE(BigInt(fn + 20), o + 8)
              recs.writeBigUInt64LE(BigInt(0x100000 + i * 8), o + 16)
            }
            recs.writeUInt8(3, 201 * 32)
            recs.writeBigUInt64LE(BigInt(fn), 201 * 32 + 8)
            agent.sendBatch(recs)
          }
          setTimeout(() => agent.send({ type: 'sampling-done' }), 20)
        }
      },
      { sampling: { kind: 'convergence', threshold: 0.05, minSamples: 2 } }
    )
    const out = await t.run()
    expect(sessions[0]!.script!.posted.filter((m) => m.type === 'stop-function')).toHaveLength(1)
    expect(out.functions[0]).toMatchObject({ samples: 3, events: 600, done: true })
    expect(out.stopReason).toBe('completed')
  })
})

describe('resolveInProcess: names as the Valgrind backend reads them', () => {
  const elf = {
    path: '/p/prog',
    relocatable: true,
    hasDebugInfo: true,
    data: [],
    functions: [
      { name: 'kernel_2mm.constprop.0', start: 0x1000, size: 0x40 },
      { name: 'kernel_2mm_extra', start: 0x1040, size: 0x10 },
      { name: 'deflateStateCheck', start: 0x1100, size: 0x20 },
      { name: 'deflateStateCheck.part.0', start: 0x1200, size: 0x30 },
      { name: 'deflateStateCheck.cold', start: 0x1300, size: 0x8 }
    ]
  }
  const exe = { path: '/p/prog', base: 0x5000_0000, start: 0x5000_0000, end: 0x5000_2000 }
  it("a C function's GCC clones come with it, or stand for it when it has no symbol of its own", async () => {
    const got = await resolveInProcess(elf, exe, [exe], ['kernel_2mm', 'deflateStateCheck'])
    expect(got.map((f) => [f.name, f.start - exe.base, f.end - f.start])).toEqual([
      ['kernel_2mm.constprop.0', 0x1000, 0x40],
      ['deflateStateCheck', 0x1100, 0x20],
      ['deflateStateCheck.part.0', 0x1200, 0x30],
      ['deflateStateCheck.cold', 0x1300, 0x8]
    ])
    expect((await resolveInProcess(elf, exe, [exe], ['kernel_2mm_extra'])).map((f) => f.name)).toEqual(['kernel_2mm_extra'])
    await expect(resolveInProcess(elf, exe, [exe], ['kernel'])).rejects.toMatchObject({ code: 'not-found' })
  })
})

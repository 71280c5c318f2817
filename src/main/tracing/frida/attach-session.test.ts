/**
 * A Frida trace written to a session, in-process, with a double of `frida` whose agent
 * replays what the real one records for the spin example's sumfunc (its own instruction
 * addresses and its arrays' runtime addresses, read from the live process): the session
 * then reads like a Valgrind one, points named by variable and source line.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RECORD, RECORD_BYTES, RecordType } from '../../../agent/protocol'
import { openSessionDb, readSessionInfo } from '../../store/session-reader'
import { readElf } from '../../symbols/elf-reader'
import { ModuleMap } from '../proc-maps'
import type { AttachWorkerMessage } from './attach-protocol'
import { recordAttachSession } from './attach-session'
import { fridaDouble, type AgentBehaviour } from './testing/frida-double'

const SPIN = join(__dirname, '..', '..', '..', '..', 'resources', 'examples', 'build', 'spin')
let child: ChildProcess
let calls: Buffer

beforeAll(async () => {
  child = spawn(SPIN, [], { stdio: ['ignore', 'pipe', 'ignore'] })
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
  // One call of sumfunc as the agent records it: entry, 3 reads per element, ret, exit.
  const elf = await readElf(SPIN)
  const maps = new ModuleMap()
  maps.refresh(child.pid!)
  const base = maps.byPath(SPIN)!.base
  const fn = elf.functions.find((f) => f.name === 'sumfunc')!
  const arr = (n: string) => base + elf.data.find((d) => d.name === n)!.start
  const loads = [0x14, 0x19, 0x1e].map((o) => base + fn.start + o) // movsd, addsd, addsd
  const ret = base + fn.start + 0x34
  const sp = 0x7ffc00001000
  const recs: Array<[number, number, number, number, number, number]> = [[RecordType.enter, 0, 0, base + fn.start, sp, base + 0x1234]]
  for (let i = 0; i < 4096; i++) ['A', 'B', 'C'].forEach((a, k) => recs.push([RecordType.access, 0, 8, loads[k]!, arr(a) + i * 8, 0]))
  recs.push([RecordType.access, 0, 8, ret, sp, 0], [RecordType.exit, 0, 0, base + fn.start, sp + 8, 0])
  calls = Buffer.alloc(recs.length * RECORD_BYTES)
  recs.forEach(([type, kind, size, a, b, c], i) => {
    const o = i * RECORD_BYTES
    calls.writeUInt8(type, o + RECORD.type)
    calls.writeUInt8(kind, o + RECORD.kind)
    calls.writeUInt16LE(size, o + RECORD.size)
    calls.writeUInt32LE(1, o + RECORD.thread)
    calls.writeBigUInt64LE(BigInt(a), o + RECORD.a)
    calls.writeBigUInt64LE(BigInt(b), o + RECORD.b)
    calls.writeBigUInt64LE(BigInt(c), o + RECORD.c)
  })
})
afterAll(() => child.kill('SIGKILL'))

async function record(behaviour: AgentBehaviour, maxEvents: number | null) {
  const out = join(mkdtempSync(join(tmpdir(), 'stride-attach-')), 's.stride')
  const { frida } = fridaDouble({ behaviour })
  const messages: AttachWorkerMessage[] = []
  await recordAttachSession(
    { target: { kind: 'attach', pid: child.pid! }, functions: ['sumfunc'], maxEvents, maxSeconds: null, sampling: { kind: 'complete' }, trackHeap: true, out },
    (m) => messages.push(m),
    {},
    { frida: async () => frida, agentSource: () => '/* agent */', stopTimeoutMs: 200 }
  )
  return { out, messages, last: messages[messages.length - 1]! }
}

const replay =
  (n: number, then?: (agent: Parameters<AgentBehaviour>[1]) => void): AgentBehaviour =>
  (m, agent) => {
    if (m.type === 'start') {
      agent.send({ type: 'ready', arch: 'x64', pid: child.pid!, functions: ['sumfunc'] })
      for (let k = 0; k < n; k++) agent.sendBatch(calls)
      then?.(agent)
    } else if (m.type === 'stop') agent.send({ type: 'stopped', lost: 0, untraced: 0 })
  }

describe('recordAttachSession', () => {
  it('writes a session like the Valgrind backend: events, named points, frida backend, partial at max events', async () => {
    const { out, last } = await record(replay(3), 20_000)
    expect(last).toMatchObject({ type: 'trace-done', events: 20_000, partial: true, stopReason: 'max-events', targetAlive: true })
    const db = openSessionDb(out, { readonly: true })
    const info = readSessionInfo(db, out)
    const points = db.prepare('SELECT ref_id AS id, file, line, function AS fn, variable FROM points ORDER BY idx').all() as Array<{ id: string; file: string; line: number; fn: string; variable: string }>
    const backend = db.prepare("SELECT value FROM meta WHERE key = 'backend'").get() as { value: string }
    db.close()
    expect(info).toMatchObject({ events: 20_000, partial: true, stopReason: 'max-events', program: SPIN })
    expect(JSON.parse(backend.value)).toBe('frida')
    expect(points.slice(0, 3).map((p) => [p.variable, p.fn, p.file.split('/').pop(), p.line])).toEqual([
      ['A', 'sumfunc', 'spin.c', 17],
      ['B', 'sumfunc', 'spin.c', 17],
      ['C', 'sumfunc', 'spin.c', 17]
    ])
    expect(points[0]!.id).toMatch(/^A_Read_17@sumfunc\+0x[0-9a-f]+$/)
  })

  it('a failure after some batches keeps the session, marked partial with the reason', async () => {
    const { out, last } = await record(
      replay(1, (agent) => agent.message.emit({ type: 'error', description: 'Error: access violation accessing 0x0' }, null)),
      null
    )
    expect(last).toMatchObject({ type: 'trace-done', partial: true, stopReason: 'error', message: expect.stringMatching(/access violation/) })
    const db = openSessionDb(out, { readonly: true })
    expect(readSessionInfo(db, out)).toMatchObject({ events: 3 * 4096 + 1, partial: true, stopReason: 'error' })
    db.close()
  })

  it('a failure before anything was recorded leaves no session and says why', async () => {
    const { out, last } = await record((m, agent) => {
      if (m.type === 'start') agent.send({ type: 'fatal', code: 'function-not-found', message: 'function sumfunc (0x1) is not in any module of process 1' })
    }, null)
    expect(last).toMatchObject({ type: 'error', code: 'not-found', session: null, message: expect.stringMatching(/^Function not found: /) })
    expect(existsSync(out)).toBe(false)
  })
})

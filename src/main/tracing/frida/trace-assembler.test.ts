import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RECORD, RECORD_BYTES, RecordType } from '../../../agent/protocol'
import { Correlator } from '../../correlate/correlator'
import { ConvergenceTracker } from './convergence'
import { TraceAssembler, type ChunkSink } from './trace-assembler'

const FIXTURE = readFileSync(join(__dirname, 'fixtures', 'sumfunc-batch.bin'))
const SUMFUNC = { name: 'sumfunc', start: 0x555555555139, end: 0x555555555174 }

class MemorySink implements ChunkSink {
  points: number[] = []
  addresses: number[] = []
  sizes: number[] = []
  threads: number[] = []
  appendChunk(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, _table: unknown, _counts?: Float64Array, threads?: Uint16Array): void {
    if (threads) this.threads.push(...threads.subarray(0, count))
    this.points.push(...points.subarray(0, count))
    this.addresses.push(...addresses.subarray(0, count))
    this.sizes.push(...sizes.subarray(0, count))
  }
}

/** Test-only encoder of agent records: [type, kind, size, thread, a, b, c]. */
function encode(records: Array<[number, number, number, number, number, number?, number?]>): Buffer {
  const buf = Buffer.alloc(records.length * RECORD_BYTES)
  records.forEach(([type, kind, size, thread, a, b = 0, c = 0], i) => {
    const o = i * RECORD_BYTES
    buf.writeUInt8(type, o + RECORD.type)
    buf.writeUInt8(kind, o + RECORD.kind)
    buf.writeUInt16LE(size, o + RECORD.size)
    buf.writeUInt32LE(thread, o + RECORD.thread)
    buf.writeBigUInt64LE(BigInt(a), o + RECORD.a)
    buf.writeBigUInt64LE(BigInt(b), o + RECORD.b)
    buf.writeBigUInt64LE(BigInt(c), o + RECORD.c)
  })
  return buf
}

describe('TraceAssembler', () => {
  it('gives each access its thread, OS thread ids numbered 1, 2, ... in first-seen order', () => {
    const sink = new MemorySink()
    const a = new TraceAssembler([SUMFUNC], sink, null, null)
    const at = (thread: number, address: number): [number, number, number, number, number, number] => [RecordType.access, 0, 8, thread, SUMFUNC.start + 0x14, address]
    const batch = encode([at(4242, 0x1000), at(4242, 0x1008), at(777, 0x2000), at(4242, 0x1010), at(9, 0x3000)])
    a.take(batch, 5)
    a.flush()
    expect(sink.threads).toEqual([1, 1, 2, 1, 3])
  })

  it('turns the recorded batch into points and a chunk, in order, with per-function counts', () => {
    const sink = new MemorySink()
    const a = new TraceAssembler([SUMFUNC], sink, null, null)
    a.take(FIXTURE, FIXTURE.length / RECORD_BYTES)
    a.flush()
    expect(a.events).toBe(11)
    expect(sink.points).toEqual([0, 1, 2, 0, 1, 2, 3, 4, 3, 4, 5])
    expect(a.points.map((p) => [p.pc.toString(16), p.kind, p.accesses])).toEqual([
      ['55555555514d', 0, 2],
      ['555555555152', 0, 2],
      ['555555555157', 0, 2],
      ['555555555170', 0, 2],
      ['555555555170', 1, 2],
      ['55555555516d', 0, 1]
    ])
    expect(sink.addresses.slice(0, 3)).toEqual([0x555555558040, 0x555555568040, 0x555555578040])
    expect(a.functionCounts()).toEqual([{ name: 'sumfunc', samples: 1, events: 11, done: false }])
    expect(a.untracedCounts).toEqual({ total: 1, byReason: { gather: 1 } })
  })

  it('stops at exactly maxEvents and drops the rest', () => {
    const sink = new MemorySink()
    const a = new TraceAssembler([SUMFUNC], sink, null, 5)
    a.take(FIXTURE, FIXTURE.length / RECORD_BYTES)
    a.take(FIXTURE, FIXTURE.length / RECORD_BYTES)
    expect(a.full).toBe(true)
    expect(a.events).toBe(5)
    expect(sink.points).toHaveLength(5)
  })

  it('gives the correlator heap blocks with their allocation site, and frames at entry', () => {
    const correlator = new Correlator(null)
    const a = new TraceAssembler([SUMFUNC], new MemorySink(), correlator, null)
    const T = 7
    const batch = encode([
      [RecordType.alloc, 0, 0, T, 0x10000, 256, 0],
      [RecordType.frame, 0, 0, T, 0x401200],
      [RecordType.frame, 1, 0, T, 0x401300],
      [RecordType.enter, 0, 0, T, SUMFUNC.start, 0x7ff000, 0x401210],
      [RecordType.access, 0, 8, T, 0x55555555514d, 0x10000 + 64],
      [RecordType.access, 1, 8, T, 0x555555555152, 0x10000 + 128],
      [RecordType.exit, 0, 0, T, SUMFUNC.start, 0x7ff008],
      [RecordType.free, 0, 0, T, 0x10000],
      [RecordType.access, 0, 8, T, 0x55555555514d, 0x10000 + 64]
    ])
    a.take(batch, 9)
    a.flush()
    const { variables, histograms } = correlator.finish()
    const heap = variables.find((v) => v.kind === 'heap')!
    expect(heap).toMatchObject({ name: 'heap_0', size: 256, reads: 1, writes: 1 })
    expect(heap.context).toEqual([0x401200, 0x401300])
    expect(correlator.allocEvents).toBe(2)
    // Point 0 read the block once while it was live, and once after free (unknown).
    expect([...histograms.get(0)!.entries()]).toEqual([[heap.id, 1], [0, 1]])
  })

  it('convergence: a function whose calls repeat the same streams is reported converged', () => {
    const converged: string[] = []
    const a = new TraceAssembler([SUMFUNC], new MemorySink(), null, null, new ConvergenceTracker(0.05), (d, f) => converged.push(`${f.name}@${d.samples}`))
    const call = (base: number) =>
      encode([
        [RecordType.enter, 0, 0, 1, SUMFUNC.start, 0x7ff000, 0],
        ...Array.from({ length: 300 }, (_, i) => [RecordType.access, 0, 8, 1, 0x55555555514d, base + i * 8] as [number, number, number, number, number, number]),
        [RecordType.exit, 0, 0, 1, SUMFUNC.start, 0x7ff008]
      ])
    a.take(call(0x100000), 302)
    expect(converged).toEqual([])
    a.take(call(0x200000), 302)
    expect(converged).toEqual(['sumfunc@2'])
    expect(a.functionCounts()[0]).toMatchObject({ samples: 2, events: 600, done: true })
  })
})

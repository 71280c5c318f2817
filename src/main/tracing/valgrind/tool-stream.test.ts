import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ToolRecord, ToolStreamError, ToolStreamReader, type ToolAllocation, type ToolStreamSink } from './tool-stream'

/** Writes records as st_main.c does (16 bytes: u64 a, u32 tag, u16 aux, u16 tid). */
class StreamWriter {
  private readonly parts: Buffer[] = []
  record(a: bigint, tag: number, aux = 0, tid = 1): this {
    const b = Buffer.alloc(16)
    b.writeBigUInt64LE(a, 0)
    b.writeUInt32LE(tag, 8)
    b.writeUInt16LE(aux, 12)
    b.writeUInt16LE(tid, 14)
    this.parts.push(b)
    return this
  }
  slot(x: bigint, y: bigint): this {
    const b = Buffer.alloc(16)
    b.writeBigUInt64LE(x, 0)
    b.writeBigUInt64LE(y, 8)
    this.parts.push(b)
    return this
  }
  control(kind: number, extra: number, a: bigint, aux = 0, tid = 1): this {
    return this.record(a, (0xffff0000 | (kind << 8) | extra) >>> 0, aux, tid)
  }
  header(pid = 4242, version = 3): this {
    return this.control(ToolRecord.header, 1, 0x3252545345444952n, version, 0).slot(BigInt(pid), 0n)
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts)
  }
}

class Log implements ToolStreamSink {
  events: string[] = []
  allocs: ToolAllocation[] = []
  header(pid: number, version: number) { this.events.push(`header ${pid} v${version}`) }
  point(pc: number, kind: number) { this.events.push(`point ${pc.toString(16)} ${kind}`) }
  access(point: number, address: number, size: number, thread: number) { this.events.push(`access ${point} ${address.toString(16)} ${size} t${thread}`) }
  context(address: number, size: number, flags: number, thread: number) { this.events.push(`context ${address.toString(16)} ${size} f${flags} t${thread}`) }
  enter(entry: number, sp: number) { this.events.push(`enter ${entry.toString(16)} ${sp.toString(16)}`) }
  leave(sp: number) { this.events.push(`leave ${sp.toString(16)}`) }
  alloc(a: ToolAllocation) { this.allocs.push(a); this.events.push(`alloc ${a.op} ${a.ptr.toString(16)}`) }
  free(ptr: number) { this.events.push(`free ${ptr.toString(16)}`) }
  detach(accesses: number, reason: number) { this.events.push(`detach ${accesses} ${reason}`) }
  exit(code: number) { this.events.push(`exit ${code}`) }
  maps(text: string) { this.events.push(`maps ${text}`) }
  thread(id: number, parent: number) { this.events.push(`thread ${id} from ${parent}`) }
  exec() { this.events.push(`exec`) }
}

function sample(): Buffer {
  const maps = '00108000-00109000 r--p 00000000 08:01 42 /tmp/prog\n'
  const w = new StreamWriter()
    .header()
    .control(ToolRecord.maps, 0, BigInt(maps.length))
  // The maps text follows in raw 16-byte slots, zero-padded.
  const text = Buffer.alloc(Math.ceil(maps.length / 16) * 16)
  text.write(maps)
  const head = Buffer.concat([w.bytes(), text])
  const rest = new StreamWriter()
    .control(ToolRecord.point, 0, 0x401000n, 0)
    .control(ToolRecord.point, 0, 0x401004n, 2)
    .record(0x7ffc0010n, 0, 8)
    .control(ToolRecord.enter, 1, 0x401100n)
    .slot(0x7ffc0000n, 0n)
    .record(0x1fff000123n, 1, 4, 2)
    .control(16 | 5, 0, 0x7ffc0040n, 8)
    .control(ToolRecord.alloc, 3, 0x4a00040n, 4 | (3 << 8))
    .slot(64n, 0n)
    .slot(0x483d35bn, 0x10927bn)
    .slot(0x4873249n, 0n)
    .control(ToolRecord.free, 0, 0x4a00040n)
    .control(ToolRecord.thread, 0, 2n, 1)
    .control(ToolRecord.leave, 0, 0x7ffc0008n)
    .control(ToolRecord.detach, 0, 3n, 1)
    .control(ToolRecord.exit, 0, 0xffffffffffffffffn)
  return Buffer.concat([head, rest.bytes()])
}

const EXPECTED = [
  'header 4242 v3',
  'maps 00108000-00109000 r--p 00000000 08:01 42 /tmp/prog\n',
  'point 401000 0',
  'point 401004 2',
  'access 0 7ffc0010 8 t1',
  'enter 401100 7ffc0000',
  'access 1 1fff000123 4 t2',
  // A context record (kind 16 | flags 5: a read, then a write): no point, no slots.
  'context 7ffc0040 8 f5 t1',
  'alloc new 4a00040',
  'free 4a00040',
  'thread 2 from 1',
  'leave 7ffc0008',
  'detach 3 1',
  'exit -1'
]

describe('ToolStreamReader', () => {
  it('reads every record kind in stream order', () => {
    const log = new Log()
    new ToolStreamReader(log).push(sample())
    expect(log.events).toEqual(EXPECTED)
    expect(log.allocs[0]).toMatchObject({ op: 'new', size: 64, old: 0, frames: [0x483d35b, 0x10927b, 0x4873249], thread: 1 })
  })

  it('gives the same calls however the bytes are split between pushes', () => {
    const bytes = sample()
    for (let cut = 1; cut < bytes.length; cut += 5) {
      const log = new Log()
      const reader = new ToolStreamReader(log)
      reader.push(bytes.subarray(0, cut))
      reader.push(bytes.subarray(cut))
      expect(log.events, `split at ${cut}`).toEqual(EXPECTED)
      expect(reader.pendingBytes).toBe(0)
    }
  })

  it('keeps a cut record pending instead of misreading it', () => {
    const bytes = sample()
    const log = new Log()
    const reader = new ToolStreamReader(log)
    reader.push(bytes.subarray(0, bytes.length - 7))
    expect(log.events).toEqual(EXPECTED.slice(0, -1))
    expect(reader.pendingBytes).toBe(9)
  })

  it('refuses what is not a Stride tool stream, in one line', () => {
    const notOurs = new StreamWriter().record(1n, 0).bytes()
    expect(() => new ToolStreamReader(new Log()).push(notOurs)).toThrow(ToolStreamError)
    const badMagic = new StreamWriter().control(ToolRecord.header, 1, 1234n, 2).slot(1n, 0n).bytes()
    expect(() => new ToolStreamReader(new Log()).push(badMagic)).toThrow(/bad magic/)
    const newer = new StreamWriter().header(1, 4).bytes()
    expect(() => new ToolStreamReader(new Log()).push(newer)).toThrow(/record format 4/)
    const hugeMaps = new StreamWriter().header().control(ToolRecord.maps, 0, 1n << 40n).bytes()
    expect(() => new ToolStreamReader(new Log()).push(hugeMaps)).toThrow(/maps record of .* bytes \(damaged stream\)/)
    const undefinedPoint = new StreamWriter().header().record(0x1000n, 5, 8).bytes()
    expect(() => new ToolStreamReader(new Log()).push(undefinedPoint)).toThrow(/undefined point 5/)
  })

  it('skips a control record kind it does not know, by its length', () => {
    const bytes = new StreamWriter().header().control(200, 2, 0n).slot(9n, 9n).slot(9n, 9n).control(ToolRecord.point, 0, 0x10n, 1).bytes()
    const log = new Log()
    new ToolStreamReader(log).push(bytes)
    expect(log.events).toEqual(['header 4242 v3', 'point 10 1'])
  })

  it('damaged bytes after a good start end in a ToolStreamError or a pending remainder, never anything else', () => {
    const start = new StreamWriter().header().control(ToolRecord.point, 0, 0x401000n, 0).bytes()
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (junk) => {
        const reader = new ToolStreamReader(new Log())
        try {
          reader.push(Buffer.concat([start, junk]))
        } catch (e) {
          expect(e).toBeInstanceOf(ToolStreamError)
        }
      }),
      { numRuns: 300 }
    )
  })
})

/**
 * Reads the record stream of Stride's Valgrind tool (format 3, resources/native/valgrind-tool/
 * README.md): 16-byte little-endian records {u64 a; u32 tag; u16 aux; u16 tid}. Pure: bytes
 * in, calls on a sink out, in stream order. Accesses are read straight from typed-array views
 * of an aligned staging buffer: no per-record objects.
 */

export const TOOL_FORMAT_VERSION = 3
const CONTROL = 0xffff0000
/** A context record (kinds 16..31, no slots): CONTROL | (16 + flags) << 8. */
const CONTEXT_MASK = 0xfffff0ff
const CONTEXT_TAG = (CONTROL | (16 << 8)) >>> 0
const RECORD = 16
const MAGIC_LO = 0x45444952 // "RIDE"
const MAGIC_HI = 0x32525453 // "STR2"
/** /proc/self/maps of a real process is kilobytes; a larger length is a damaged record. */
const MAX_MAPS_BYTES = 16 << 20

export const ToolRecord = {
  header: 1,
  point: 2,
  enter: 3,
  leave: 4,
  alloc: 5,
  free: 6,
  detach: 7,
  exit: 8,
  maps: 9,
  thread: 10,
  exec: 11
} as const

export const DetachReason = { maxEvents: 1, seconds: 2 } as const

/** Control kinds a sink's accessRun may take: function entries and returns. */
const FRAME_KINDS = Uint8Array.from({ length: 256 }, (_, k) => (k === ToolRecord.enter || k === ToolRecord.leave ? 1 : 0))

/** Allocation operations, as the tool numbers them. */
export const ALLOC_OPS = ['malloc', 'calloc', 'realloc', 'memalign', 'new', 'new[]'] as const
export type AllocOp = (typeof ALLOC_OPS)[number]

export interface ToolAllocation {
  op: AllocOp
  ptr: number
  size: number
  /** The block realloc moved from (0 for the others). */
  old: number
  /** Valgrind's stack trace: [0] the wrapper, [1..] return addresses minus one, innermost first. */
  frames: number[]
  thread: number
}

export interface ToolStreamSink {
  header(pid: number, version: number): void
  /** Defines the next access point id (0, 1, 2, ... in stream order). */
  point(pc: number, kind: number): void
  access(point: number, address: number, size: number, thread: number): void
  /**
   * An access of the rest of the program (a function-scoped trace with --context): no point;
   * `flags` as the tool's ST_CTX_* (st_protocol.h). accessRun takes these too, where it can.
   */
  context(address: number, size: number, flags: number, thread: number): void
  /**
   * Optional fast path: takes as many access records as it can from `stage` at byte offset
   * `at` (whole records up to `end`; tool points below `defined` are defined), and the entries
   * and returns it can pass over (those that change nothing for it), and returns the offset it
   * stopped at; the record there, if any, then goes through the other methods.
   */
  accessRun?(stage: Uint8Array, at: number, end: number, defined: number): number
  enter(entry: number, sp: number, thread: number): void
  leave(sp: number, thread: number): void
  alloc(a: ToolAllocation): void
  free(ptr: number, thread: number): void
  detach(accesses: number, reason: number): void
  exit(code: number): void
  /** The process's /proc/self/maps text, sent as new objects are met. */
  maps(text: string): void
  /** A thread was created (Valgrind reuses the ids of threads that ended). */
  thread(id: number, parent: number): void
  /** The program called execve: every record before it is out (a later record: the call failed). */
  exec(): void
}

export class ToolStreamError extends Error {}

export class ToolStreamReader {
  private stage = new ArrayBuffer(1 << 22)
  private bytes = new Uint8Array(this.stage)
  private u32 = new Uint32Array(this.stage)
  private u16 = new Uint16Array(this.stage)
  private filled = 0
  private headerSeen = false
  points = 0
  records = 0

  constructor(private readonly sink: ToolStreamSink) {}

  /** Feeds bytes as they arrive; a record split between two pushes is kept for the next. */
  push(chunk: Uint8Array): void {
    let offset = 0
    while (offset < chunk.length) {
      const space = this.space()
      const n = Math.min(chunk.length - offset, space.length)
      space.set(chunk.subarray(offset, offset + n))
      offset += n
      this.received(n)
    }
  }

  /**
   * Where the next bytes go: the free end of the staging buffer, for a reader that reads the
   * stream straight into it (no copy, no buffer per read); then received(n).
   */
  space(): Uint8Array {
    return this.bytes.subarray(this.filled)
  }

  /** `n` bytes were written at the start of space(): parses the whole records now staged. */
  received(n: number): void {
    this.filled += n
    const used = this.parse()
    if (used === 0 && this.filled === this.bytes.length) this.grow()
    this.bytes.copyWithin(0, used, this.filled)
    this.filled -= used
  }

  /** Bytes left over at the end: a stream cut short (the tool was killed mid-write). */
  get pendingBytes(): number {
    return this.filled
  }

  private grow(): void {
    // Only a control record with many slots can outgrow the stage; never happens with the tool's limits.
    const next = new ArrayBuffer(this.stage.byteLength * 2)
    new Uint8Array(next).set(this.bytes)
    this.stage = next
    this.bytes = new Uint8Array(next)
    this.u32 = new Uint32Array(next)
    this.u16 = new Uint16Array(next)
  }

  /** Parses whole records; returns the bytes consumed. */
  private parse(): number {
    const u32 = this.u32
    const u16 = this.u16
    const sink = this.sink
    const end = this.filled - (this.filled % RECORD)
    let at = 0
    while (at < end) {
      const w = at >>> 2
      const tag = u32[w + 2]!
      const isContext = ((tag & CONTEXT_MASK) >>> 0) === CONTEXT_TAG
      // An entry or a return too: the sink's run may pass over those that change no frame.
      if (isContext || tag < CONTROL || FRAME_KINDS[(tag >>> 8) & 0xff] === 1) {
        if (!this.headerSeen) throw new ToolStreamError('the stream does not start with a Stride tool header')
        // A run of accesses and context records, natively where the sink can; else this one record.
        if (sink.accessRun) {
          const next = sink.accessRun(this.bytes, at, end, this.points)
          if (next > at) {
            at = next
            continue
          }
        }
      }
      if (isContext) {
        sink.context(u32[w + 1]! * 4294967296 + u32[w]!, u16[(at >>> 1) + 6]!, (tag >>> 8) & 15, u16[(at >>> 1) + 7]!)
        at += RECORD
        continue
      }
      if (tag < CONTROL) {
        if (tag >= this.points) throw new ToolStreamError(`access of undefined point ${tag}`)
        sink.access(tag, u32[w + 1]! * 4294967296 + u32[w]!, u16[(at >>> 1) + 6]!, u16[(at >>> 1) + 7]!)
        at += RECORD
        continue
      }
      const kind = (tag >>> 8) & 0xff
      // A maps record's slots are counted by its byte length, not by `extra`.
      if (kind === ToolRecord.maps && this.word(at) > MAX_MAPS_BYTES) throw new ToolStreamError(`a maps record of ${this.word(at)} bytes (damaged stream)`)
      const extra = kind === ToolRecord.maps ? Math.ceil(this.word(at) / RECORD) : tag & 0xff
      if (at + RECORD * (1 + extra) > end) break
      this.control(at, kind, extra)
      at += RECORD * (1 + extra)
    }
    this.records += at / RECORD
    return at
  }

  private word(at: number): number {
    const w = at >>> 2
    const hi = this.u32[w + 1]!
    // Addresses and sizes stay below 2^53 on x86-64 (47-bit user space).
    return hi * 4294967296 + this.u32[w]!
  }

  /** The first or second word of slot `k` of the control record at `at` (a method: no closure per record). */
  private slot(at: number, k: number, second: boolean): number {
    return this.word(at + RECORD * (1 + k) + (second ? 8 : 0))
  }

  private control(at: number, kind: number, extra: number): void {
    const a = this.word(at)
    const aux = this.u16[(at >>> 1) + 6]!
    const tid = this.u16[(at >>> 1) + 7]!
    if (!this.headerSeen && kind !== ToolRecord.header) throw new ToolStreamError('the stream does not start with a Stride tool header')
    switch (kind) {
      case ToolRecord.header: {
        const w = at >>> 2
        if (this.u32[w] !== MAGIC_LO || this.u32[w + 1] !== MAGIC_HI) throw new ToolStreamError('not a Stride tool stream (bad magic)')
        if (aux !== TOOL_FORMAT_VERSION) throw new ToolStreamError(`record format ${aux}, this Stride reads ${TOOL_FORMAT_VERSION}: the tool in the cache is stale`)
        this.headerSeen = true
        this.sink.header(extra > 0 ? this.slot(at, 0, false) : 0, aux)
        return
      }
      case ToolRecord.point:
        this.points++
        this.sink.point(a, aux)
        return
      case ToolRecord.enter:
        this.sink.enter(a, this.slot(at, 0, false), tid)
        return
      case ToolRecord.leave:
        this.sink.leave(a, tid)
        return
      case ToolRecord.alloc: {
        const nframes = aux >>> 8
        const frames: number[] = []
        for (let k = 0; k < nframes; k++) frames.push(this.slot(at, 1 + (k >> 1), (k & 1) === 1))
        this.sink.alloc({ op: ALLOC_OPS[aux & 0xff] ?? 'malloc', ptr: a, size: this.slot(at, 0, false), old: this.slot(at, 0, true), frames, thread: tid })
        return
      }
      case ToolRecord.free:
        this.sink.free(a, tid)
        return
      case ToolRecord.detach:
        this.sink.detach(a, aux)
        return
      case ToolRecord.maps:
        this.sink.maps(new TextDecoder().decode(this.bytes.subarray(at + RECORD, at + RECORD + a)))
        return
      case ToolRecord.thread:
        this.sink.thread(a, aux)
        return
      case ToolRecord.exec:
        this.sink.exec()
        return
      case ToolRecord.exit:
        // A sign-extended int: its low 32 bits, signed.
        this.sink.exit(this.u32[at >>> 2]! | 0)
        return
      default:
        // A newer tool's record kind this reader does not know: skip it, its length is known.
        return
    }
  }
}

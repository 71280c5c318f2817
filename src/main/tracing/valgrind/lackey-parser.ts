/**
 * Streaming parser for `valgrind --tool=lackey --trace-mem=yes` output.
 *
 * Lines (as written by lackey's trace_instr / trace_load / trace_store / trace_modify):
 *   "I  04016a4,3"      an instruction at 0x4016a4, 3 bytes long
 *   " L 1ffefffd58,8"   a load of 8 bytes
 *   " S 1ffefffd50,8"   a store
 *   " M 0421b48,4"      a modify (load + store of the same bytes by one instruction)
 *   "==1234== ..."      Valgrind's own log lines (errors, the target's fatal signal)
 *   "**1234** ..."      client messages (VALGRIND_PRINTF), e.g. the allocation interposer's
 * A data line belongs to the last "I" line before it. Chunks may split lines anywhere;
 * the parser carries the unfinished tail over. It works on bytes, never builds strings
 * for trace lines, and allocates nothing per event.
 */
import { KIND_MODIFY, KIND_READ, KIND_WRITE } from '../../../shared/access-kinds'

export { KIND_MODIFY, KIND_READ, KIND_WRITE }

export interface LackeySink {
  /** One data access. `pc` is the instruction that made it. Return false to stop parsing. */
  access(pc: number, kind: number, address: number, size: number): boolean
  /** A Valgrind log line ("==pid== ...") or client message ("**pid** ..."), without the newline. */
  log(line: string): void
  /**
   * An instruction that directly follows a store line, when given. A function's first
   * instruction always does (the call pushed the return address), so this sees every entry
   * at a fraction of the cost of a call per instruction.
   */
  instructionAfterStore?(pc: number): void
}

const NL = 0x0a
const SPACE = 0x20
const COMMA = 0x2c
const EQ = 0x3d
const STAR = 0x2a

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  if (c >= 0x61 && c <= 0x66) return c - 0x57
  if (c >= 0x41 && c <= 0x46) return c - 0x37
  return -1
}

export class LackeyParser {
  private pc = 0
  private afterStore = false
  private tail: Buffer | null = null
  private stopped = false
  /** Lines that were neither trace nor log lines (e.g. the target's own output on the same fd). */
  malformedLines = 0

  constructor(private readonly sink: LackeySink) {}

  get isStopped(): boolean {
    return this.stopped
  }

  /** Feed the next chunk of the stream. Returns false once the sink asked to stop. */
  push(chunk: Buffer): boolean {
    if (this.stopped) return false
    let buf = chunk
    if (this.tail) {
      buf = Buffer.concat([this.tail, chunk])
      this.tail = null
    }
    let start = 0
    const n = buf.length
    while (start < n) {
      const end = buf.indexOf(NL, start)
      if (end < 0) {
        // Keep the unfinished line for the next chunk (copy: the chunk may be reused).
        this.tail = Buffer.from(buf.subarray(start))
        break
      }
      if (!this.line(buf, start, end)) {
        this.stopped = true
        return false
      }
      start = end + 1
    }
    return true
  }

  /** The stream ended: parse a final line without newline. */
  end(): void {
    if (this.tail && !this.stopped) {
      const t = this.tail
      this.tail = null
      this.line(t, 0, t.length)
    }
  }

  private line(buf: Buffer, start: number, end: number): boolean {
    if (end - start < 4) {
      if (end > start) this.malformedLines++
      return true
    }
    const c0 = buf[start]!
    if (c0 === 0x49 /* I */ && buf[start + 1] === SPACE) {
      const pc = this.hexField(buf, start + 2, end)
      if (pc >= 0) {
        this.pc = pc
        if (this.afterStore) this.sink.instructionAfterStore?.(pc)
      } else this.malformedLines++
      this.afterStore = false
      return true
    }
    if (c0 === SPACE && buf[start + 2] === SPACE) {
      const k = buf[start + 1]!
      const kind = k === 0x4c /* L */ ? KIND_READ : k === 0x53 /* S */ ? KIND_WRITE : k === 0x4d /* M */ ? KIND_MODIFY : -1
      if (kind < 0) {
        this.malformedLines++
        return true
      }
      // address
      let i = start + 3
      let addr = 0
      let digits = 0
      for (; i < end; i++) {
        const v = hexValue(buf[i]!)
        if (v < 0) break
        addr = addr * 16 + v
        digits++
      }
      if (digits === 0 || digits > 13 || buf[i] !== COMMA) {
        // More than 13 hex digits would not be exact in a double (see simulate/README.md).
        this.malformedLines++
        return true
      }
      let size = 0
      for (i++; i < end; i++) {
        const c = buf[i]!
        if (c < 0x30 || c > 0x39) break
        size = size * 10 + (c - 0x30)
      }
      if (size <= 0) {
        this.malformedLines++
        return true
      }
      this.afterStore = kind === KIND_WRITE
      return this.sink.access(this.pc, kind, addr, size)
    }
    // "==pid==" Valgrind messages and "**pid**" client requests (VALGRIND_PRINTF).
    if ((c0 === EQ && buf[start + 1] === EQ) || (c0 === STAR && buf[start + 1] === STAR)) {
      this.sink.log(buf.toString('utf8', start, end))
      return true
    }
    this.malformedLines++
    return true
  }

  /** Parses "hex,dec" after skipping spaces; returns the hex part or -1. */
  private hexField(buf: Buffer, from: number, end: number): number {
    let i = from
    while (i < end && buf[i] === SPACE) i++
    let v = 0
    let digits = 0
    for (; i < end; i++) {
      const h = hexValue(buf[i]!)
      if (h < 0) break
      v = v * 16 + h
      digits++
    }
    return digits === 0 || digits > 13 ? -1 : v
  }
}

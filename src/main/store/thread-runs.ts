/**
 * Which thread made each access, kept per stored chunk as runs (thread, count) rather than an
 * array per access: Valgrind runs one thread at a time in long slices, so a chunk of 262,144
 * accesses holds a handful of runs (a few bytes), where a per-access array would add half a
 * megabyte. `trace_chunks.threads` (v13) holds a chunk's runs; null where the recorder gave no
 * thread (Lackey) and in older sessions.
 *
 * Blob: little-endian u32 CRC-32 over (seq, first event, events as float64) and the pairs,
 * then u32 pairs (thread, count). The CRC binds the runs to the chunk's place, as the chunk's
 * own checksum does its bytes; the counts must add up to the chunk's events.
 *
 * Thread numbers are the recorder's: Stride's Valgrind tool numbers threads 1, 2, ... in
 * creation order (a Valgrind id reused after a thread ended gets a new number); Frida's OS
 * thread ids are numbered the same way in first-seen order.
 */
import { crc32 } from 'node:zlib'

/**
 * The runs of `threads[0..count)`: pairs (thread, count), in order. Runs are long (Valgrind's
 * time slices), so a Uint16Array is scanned two threads at a time through an Int32Array view
 * (one compare per pair): it runs once per stored chunk on the trace worker.
 */
export function threadRunsOf(threads: Uint16Array | ArrayLike<number>, count: number): Uint32Array {
  if (count === 0) return new Uint32Array(0)
  const out: number[] = []
  let current = threads[0]!
  let from = 0
  const pairs = threads instanceof Uint16Array && threads.byteOffset % 4 === 0 ? new Int32Array(threads.buffer, threads.byteOffset, count >> 1) : null
  let i = 1
  while (i < count) {
    if (pairs && (i & 1) === 0) {
      // Skip whole pairs equal to the current thread.
      const both = current | (current << 16)
      let w = i >> 1
      while (w < pairs.length && pairs[w] === both) w++
      i = w << 1
      if (i >= count) break
    }
    const t = threads[i]!
    if (t !== current) {
      out.push(current, i - from)
      current = t
      from = i
    }
    i++
  }
  out.push(current, count - from)
  return Uint32Array.from(out)
}

function runsChecksum(seq: number, firstEvent: number, events: number, pairs: Uint8Array): number {
  const head = Buffer.alloc(24)
  head.writeDoubleLE(seq, 0)
  head.writeDoubleLE(firstEvent, 8)
  head.writeDoubleLE(events, 16)
  return crc32(pairs, crc32(head))
}

/** A chunk's runs as stored. */
export function encodeThreadRuns(seq: number, firstEvent: number, events: number, runs: Uint32Array): Buffer {
  const out = Buffer.alloc(4 + runs.length * 4)
  for (let i = 0; i < runs.length; i++) out.writeUInt32LE(runs[i]!, 4 + i * 4)
  out.writeUInt32LE(runsChecksum(seq, firstEvent, events, out.subarray(4)), 0)
  return out
}

/** A stored chunk's runs, or the reason they are damaged (a string). */
export function decodeThreadRuns(seq: number, firstEvent: number, events: number, blob: Uint8Array): Uint32Array | string {
  if (blob.length < 12 || (blob.length - 4) % 8 !== 0) return `its thread runs are ${blob.length} bytes, not a checksum and (thread, count) pairs`
  const bytes = Buffer.from(blob.buffer, blob.byteOffset, blob.length)
  if (bytes.readUInt32LE(0) !== runsChecksum(seq, firstEvent, events, bytes.subarray(4))) return 'its thread runs do not match their checksum'
  const runs = new Uint32Array((blob.length - 4) / 4)
  let sum = 0
  for (let i = 0; i < runs.length; i++) {
    runs[i] = bytes.readUInt32LE(4 + i * 4)
    if (i % 2 === 1) {
      if (runs[i] === 0) return 'a thread run of its holds no access'
      sum += runs[i]!
    }
  }
  if (sum !== events) return `its thread runs hold ${sum} accesses, not its ${events}`
  return runs
}

/**
 * Each access's thread, in trace order, from the runs of all chunks (concatenated: chunks are
 * consecutive). `fill` writes the next `count` accesses' threads.
 */
export class ThreadCursor {
  private run = 0
  private left: number

  constructor(private readonly runs: Uint32Array) {
    this.left = runs.length > 1 ? runs[1]! : 0
  }

  fill(out: Uint32Array, count: number): void {
    const runs = this.runs
    let i = 0
    while (i < count) {
      if (this.left === 0) {
        this.run += 2
        if (this.run >= runs.length) throw new Error('internal: more accesses than thread runs')
        this.left = runs[this.run + 1]!
      }
      const n = Math.min(this.left, count - i)
      out.fill(runs[this.run]!, i, i + n)
      i += n
      this.left -= n
    }
  }
}

/** The distinct threads of `runs`, ascending. */
export function threadsOf(runs: Uint32Array): number[] {
  const seen = new Set<number>()
  for (let i = 0; i < runs.length; i += 2) seen.add(runs[i]!)
  return [...seen].sort((a, b) => a - b)
}

/**
 * The tool's records through a ring of memory shared with it (the native core makes it,
 * resources/native/core/src/trace/ring.c; the tool's side is st_main.c's ring mode): the tool
 * fills the ring's blocks in turn and sends a token per full block down a pipe; each block is
 * copied into the stream reader's staging buffer and given back with one byte on the ack
 * pipe. Through a pipe, every record was copied into the kernel and out again, which took a
 * tenth of a second of a 15 M-access trace (docs/BENCHMARKS.md at cb83178, "The records through shared
 * memory"). A paused socket stops the acknowledgements: the tool then waits, as it did on a
 * full pipe, so memory stays flat.
 */
import type { Socket } from 'node:net'
import { nativeCore } from '../../native/core'
import { readInto, readRecords, recordPipe, type StagingReader } from './record-pipe'

/** Where the tool's records arrive: a ring shared with it, or the reading end of its pipe (where no ring could be made). */
export type RecordSource = { ring: RecordRing } | { pipe: number }

/** Blocks in the ring, and records per block (ST_RING_BLOCK_RECORDS in st_protocol.h). */
export const RING_BLOCKS = 4
export const RING_BLOCK_RECORDS = 32 * 1024
const RECORD_BYTES = 16
const BLOCK_BYTES = RING_BLOCK_RECORDS * RECORD_BYTES
/** ST_RING_NONE: the tool could not map the ring; the rest of the token pipe is the record stream itself. */
export const RING_NONE = 0xffffffff

export interface RecordRing {
  /** The core's handle on the mapping. */
  handle: unknown
  /** The tool's: the ring itself (its --ring-fd), the token pipe's write end (--out-fd) and the ack pipe's read end (--ack-fd). */
  memFd: number
  tokenWrite: number
  ackRead: number
  /** Ours: tokens in, acknowledgements out. */
  tokenRead: number
  ackWrite: number
}

type RingExports = {
  traceRing: (blocks: number, blockBytes: number) => [unknown, number, number, number, number, number]
  traceRingCopy: (ring: unknown, block: number, from: number, into: Uint8Array, at: number, bytes: number) => void
  traceRingAck: (fd: number) => boolean
  traceRingClose: (ring: unknown) => void
  tracePipeClose: (fd: number) => void
}

const core = () => nativeCore() as unknown as RingExports

/**
 * A new ring, or null where one cannot be made (no memfd_create, a core built before it, or
 * STRIDE_RECORD_TRANSPORT=pipe): the records then go through a pipe, as before.
 */
export function recordRing(): RecordRing | null {
  if (process.env.STRIDE_RECORD_TRANSPORT === 'pipe') return null
  try {
    const c = core()
    if (typeof c.traceRing !== 'function') return null
    const [handle, memFd, tokenRead, tokenWrite, ackRead, ackWrite] = c.traceRing(RING_BLOCKS, BLOCK_BYTES)
    return { handle, memFd, tokenRead, tokenWrite, ackRead, ackWrite }
  } catch {
    return null
  }
}

/** The tool's options for a ring, whose ends it gets as fds 3 (tokens), 5 (the ring) and 6 (acks). */
export const RING_TOOL_ARGS = ['--ring-fd=5', '--ack-fd=6', `--ring-blocks=${RING_BLOCKS}`]

/**
 * Reads the ring into `reader` as tokens arrive, calling `afterRead` after each read of the
 * token pipe: readRecords' contract (record-pipe.ts), for the ring. `done` settles once the
 * token pipe is closed (the tool exited) and every block announced was read.
 */
export function readRing(ring: RecordRing, reader: StagingReader, afterRead: () => void, failed: (e: unknown) => void): { socket: Socket; done: Promise<void> } {
  const c = core()
  // Tokens are 4-byte writes (atomic on a pipe), read in a buffer whose size is a multiple of 4;
  // a split one is still carried over rather than trusted to never happen.
  const tokens = new Uint8Array(4096)
  const view = new DataView(tokens.buffer)
  let carry = 0
  let seq = 0
  const block = (count: number) => {
    if (!(count > 0 && count <= RING_BLOCK_RECORDS)) throw new Error(`the record ring announced a block of ${count} records`)
    const index = seq++ % RING_BLOCKS
    for (let from = 0, left = count * RECORD_BYTES; left > 0; ) {
      const space = reader.space()
      const n = Math.min(left, space.length)
      c.traceRingCopy(ring.handle, index, from, space, 0, n)
      reader.received(n)
      from += n
      left -= n
    }
    c.traceRingAck(ring.ackWrite)
  }
  /** Bytes of the record stream itself, once the tool said it could not map the ring. */
  const stream = (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length; ) {
      const space = reader.space()
      const n = Math.min(bytes.length - at, space.length)
      space.set(bytes.subarray(at, at + n))
      reader.received(n)
      at += n
    }
  }
  let piped = false
  // Piped, reads land in the reader's staging buffer, as readRecords' do.
  const buffer = () => (piped ? reader.space() : tokens.subarray(carry))
  const received = (n: number) => {
    if (piped) return reader.received(n)
    const total = carry + n
    const whole = total - (total % 4)
    let at = 0
    for (; at < whole && !piped; at += 4) {
      const token = view.getUint32(at, true)
      if (token === RING_NONE && seq === 0) piped = true
      else block(token)
    }
    if (piped) return stream(tokens.subarray(at, total))
    carry = total - whole
    tokens.copyWithin(0, whole, total)
  }
  return readInto(ring.tokenRead, buffer, received, afterRead, failed, () => {
    c.tracePipeClose(ring.ackWrite)
    c.traceRingClose(ring.handle)
  })
}

/** The tool's record stream, as it is started: a ring where one can be made, else a pipe. */
export interface ToolStream {
  /** The tool's fds from 3 on (spawn's stdio entries: fd 4 is Valgrind's log), and its options for them. */
  toolEnds: Array<number | 'pipe'>
  toolArgs: string[]
  /** Our ends, for the reader. */
  source: RecordSource
}

export function toolStream(): ToolStream {
  const ring = recordRing()
  if (ring) return { toolEnds: [ring.tokenWrite, 'pipe', ring.memFd, ring.ackRead], toolArgs: RING_TOOL_ARGS, source: { ring } }
  const pipe = recordPipe()
  return { toolEnds: [pipe.writeFd, 'pipe'], toolArgs: [], source: { pipe: pipe.readFd } }
}

/** Closes the ends the tool was given (it has its copies, or none): ours would keep its pipes open after it exits. */
export function closeToolEnds(ends: ReadonlyArray<number | 'pipe'>): void {
  for (const fd of ends) if (typeof fd === 'number') core().tracePipeClose(fd)
}

/** Closes our ends (and the ring's mapping), for a stream nobody reads (a trace that failed before reading). */
export function dropSource(source: RecordSource): void {
  if ('pipe' in source) return core().tracePipeClose(source.pipe)
  core().tracePipeClose(source.ring.tokenRead)
  core().tracePipeClose(source.ring.ackWrite)
  core().traceRingClose(source.ring.handle)
}

/** readRing or readRecords, as the tool was started. */
export function readToolRecords(source: RecordSource, reader: StagingReader, afterRead: () => void, failed: (e: unknown) => void): { socket: Socket; done: Promise<void> } {
  return 'ring' in source ? readRing(source.ring, reader, afterRead, failed) : readRecords(source.pipe, reader, afterRead, failed)
}

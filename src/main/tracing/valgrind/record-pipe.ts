/**
 * The pipe the tool writes its records into, and the socket that reads them. Node has no
 * pipe(2) (child_process's own pipes hand out a new Buffer per read: a quarter of a gigabyte of
 * garbage, and major collections, for a 15 M-access trace), so the native core makes it
 * (resources/native/core/src/trace/pipe.c), and the reading end reads straight into the
 * stream reader's staging buffer.
 */
import { Socket, type OnReadOpts, type SocketConstructorOpts } from 'node:net'
import { StrideError } from '../../../shared/errors'
import { nativeCore } from '../../native/core'

/** 1 MiB, the most an unprivileged process may ask for by default (fs.pipe-max-size). */
const PIPE_BYTES = 1 << 20

export interface RecordPipe {
  readFd: number
  /** Given to the tool as its fd 3; then closed (ours would keep the pipe open after the tool exits). */
  writeFd: number
}

type PipeExports = { tracePipe: (capacity: number) => [number, number, number]; tracePipeClose: (fd: number) => void }

function pipeExports(): PipeExports {
  const core = nativeCore() as unknown as Partial<PipeExports>
  if (typeof core.tracePipe !== 'function' || typeof core.tracePipeClose !== 'function')
    throw new StrideError('Stride\'s native core predates the trace pipe: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
  return core as PipeExports
}

export function recordPipe(): RecordPipe {
  const [readFd, writeFd] = pipeExports().tracePipe(PIPE_BYTES)
  return { readFd, writeFd }
}

/** Closes an end of the pipe that no socket owns (fs.closeSync warns in a worker about an fd fs did not open). */
export function closePipeEnd(fd: number): void {
  pipeExports().tracePipeClose(fd)
}

/** Where the reader wants the next bytes, and what it does with them. */
export interface StagingReader {
  space(): Uint8Array
  received(n: number): void
}

/**
 * Reads the pipe into `reader` as data arrives, calling `afterRead` after each read. The socket
 * owns the fd from here; it is destroyed when the reader throws (`failed` gets the error) or
 * the pipe fails, and `done` settles once it is closed: every byte the tool wrote was read.
 */
export function readRecords(readFd: number, reader: StagingReader, afterRead: () => void, failed: (e: unknown) => void): { socket: Socket; done: Promise<void> } {
  return readInto(readFd, () => reader.space(), (n) => reader.received(n), afterRead, failed)
}

/**
 * A socket that reads `fd` into the buffers `buffer()` gives, no Buffer allocated per read, and
 * hands each read's length to `received`; a throw there stops the reading (`failed` gets it, the
 * socket is destroyed), as a failure of the pipe does. `done` settles once the socket is closed,
 * after `closed()`. Also the record ring's token reader (record-ring.ts).
 */
export function readInto(
  fd: number,
  buffer: () => Uint8Array,
  received: (n: number) => void,
  afterRead: () => void,
  failed: (e: unknown) => void,
  closed: () => void = () => {}
): { socket: Socket; done: Promise<void> } {
  // Node's Socket constructor takes `onread` (connect() passes its options through to it);
  // @types/node lists it only among connect()'s options.
  const options: SocketConstructorOpts & { onread: OnReadOpts } = {
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer,
      callback: (n: number) => {
        try {
          received(n)
        } catch (e) {
          failed(e)
          socket.destroy()
          return false
        }
        afterRead()
        return true
      }
    }
  }
  const socket = new Socket(options)
  socket.on('error', (e) => failed(e))
  const done = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed()
      resolve()
    })
  )
  return { socket, done }
}

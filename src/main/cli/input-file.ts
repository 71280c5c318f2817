/**
 * Input files the CLI reads whole (`simulate --configs FILE`): regular files only (a FIFO or a
 * device such as /dev/zero would block or never end) and at most a bounded size, else one line.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { StrideError } from '../../shared/errors'

/** The most an input file (a configuration list) may hold. */
export const MAX_INPUT_FILE = 16 * 1024 * 1024

export function readInputFile(path: string, what: string, command: string, limit = MAX_INPUT_FILE): string {
  const refuse = (why: string) => new StrideError(`stride ${command}: ${what} ${path.length > 80 ? `${path.slice(0, 80)}…` : path} ${why}.`)
  let fd: number
  try {
    const st = statSync(path)
    if (!st.isFile()) throw refuse(`is not a regular file (${st.isDirectory() ? 'a folder' : 'a FIFO, socket or device'}); give a file`)
    if (st.size > limit) throw refuse(`holds ${st.size} bytes, more than the ${limit} such a file may; give a smaller file`)
    // Non-blocking: a file swapped for a FIFO since the check does not hang the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (e) {
    if (e instanceof StrideError) throw e
    const code = (e as NodeJS.ErrnoException).code
    throw refuse(code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : `cannot be read (${code ?? (e as Error).message})`)
  }
  try {
    if (!fstatSync(fd).isFile()) throw refuse('is not a regular file; give a file')
    const buf = Buffer.alloc(limit + 1)
    let n = 0
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null)
      if (got === 0) break
      n += got
      if (n > limit) throw refuse(`holds more than the ${limit} bytes such a file may; give a smaller file`)
    }
    return buf.subarray(0, n).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { closePipeEnd, readRecords, recordPipe, type StagingReader } from './record-pipe'
import { StageCollector } from '../../testing/tool-stream'

/**
 * A child writing `bytes` bytes of value 7 to its fd 3 (the pipe's write end), as the tool does.
 * `closed` is taken at the spawn: a small writer can exit before a test gets to wait for it.
 */
function writer(writeFd: number, bytes: number) {
  const child = spawn('sh', ['-c', `head -c ${bytes} /dev/zero | tr '\\0' '\\7' >&3`], { stdio: ['ignore', 'ignore', 'inherit', writeFd] })
  return Object.assign(child, { closed: once(child, 'close') })
}

describe('the record pipe', () => {
  it('delivers every byte into the reader\'s own buffer, and ends when the writer exits', async () => {
    const pipe = recordPipe()
    const child = writer(pipe.writeFd, 3_000_000)
    closePipeEnd(pipe.writeFd)
    const reader = new StageCollector(4096)
    const failures: unknown[] = []
    const { done } = readRecords(pipe.readFd, reader, () => {}, (e) => failures.push(e))
    await done
    await child.closed
    expect(failures).toEqual([])
    expect(reader.total).toBe(3_000_000)
    expect(reader.sum).toBe(7 * 3_000_000)
  })

  it('is not inherited by other children: the end arrives while an unrelated child still runs', async () => {
    const pipe = recordPipe()
    const child = writer(pipe.writeFd, 1000)
    // Started after the pipe exists, without it: were the write end inherited, no end until it exits.
    const bystander = spawn('sleep', ['30'], { stdio: 'ignore' })
    closePipeEnd(pipe.writeFd)
    const reader = new StageCollector(4096)
    const { done } = readRecords(pipe.readFd, reader, () => {}, () => {})
    const ended = await Promise.race([done.then(() => 'ended'), new Promise((r) => setTimeout(() => r('timed out'), 10_000))])
    bystander.kill('SIGKILL')
    await child.closed
    expect(ended).toBe('ended')
    expect(reader.total).toBe(1000)
  })

  it('a reader that throws stops the reading once, and the socket closes', async () => {
    const pipe = recordPipe()
    const child = writer(pipe.writeFd, 2_000_000)
    closePipeEnd(pipe.writeFd)
    const failures: unknown[] = []
    const reader: StagingReader = {
      space: () => new Uint8Array(1024),
      received: () => {
        throw new Error('damaged stream')
      }
    }
    const { done } = readRecords(pipe.readFd, reader, () => {}, (e) => failures.push(e))
    await done
    child.kill('SIGKILL') // it may be blocked on the full pipe nobody reads any more
    await child.closed
    expect(failures.map((e) => (e as Error).message)).toEqual(['damaged stream'])
  })
})

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { StageCollector } from '../../testing/tool-stream'
import type { StagingReader } from './record-pipe'
import { closeToolEnds, readRing, recordRing, RING_BLOCK_RECORDS, RING_BLOCKS, RING_NONE, type RecordRing } from './record-ring'

/**
 * The tool's side of the protocol (st_main.c's ring mode) in a child process: it writes each
 * block into the ring's file (fd 5) at its place, announces it with a u32 token on fd 3, and
 * waits for an acknowledgement on fd 6 before reusing a block. Byte k of the stream is k % 251.
 */
function toolLike(ring: RecordRing, blocks: number[], { unmapped = false } = {}) {
  // `unmapped`: as a tool that could not map the ring: the token RING_NONE, then the stream itself.
  const script = `
    const fs = require('node:fs')
    const counts = ${JSON.stringify(blocks)}
    if (${unmapped}) {
      let k = 0
      const none = Buffer.alloc(4)
      none.writeUInt32LE(${RING_NONE})
      const bytes = Buffer.alloc(counts.reduce((a, b) => a + b, 0) * 16)
      for (let i = 0; i < bytes.length; i++) bytes[i] = k++ % 251
      fs.writeSync(3, Buffer.concat([none, bytes.subarray(0, 100)]))
      fs.writeSync(3, bytes.subarray(100))
      process.exit(0)
    }
    const blockBytes = ${RING_BLOCK_RECORDS * 16}, ringBlocks = ${RING_BLOCKS}
    let published = 0, acked = 0, k = 0
    for (const count of counts) {
      const block = Buffer.alloc(count * 16)
      for (let i = 0; i < block.length; i++) block[i] = k++ % 251
      fs.writeSync(5, block, 0, block.length, (published % ringBlocks) * blockBytes)
      const token = Buffer.alloc(4)
      token.writeUInt32LE(count)
      fs.writeSync(3, token)
      published++
      while (published - acked >= ringBlocks) {
        const n = fs.readSync(6, Buffer.alloc(64))
        if (n === 0) process.exit(0) // the reader went away, as the tool's reader_gone
        acked += n
      }
    }`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'ignore', ring.tokenWrite, 'ignore', ring.memFd, ring.ackRead] })
  closeToolEnds([ring.tokenWrite, ring.memFd, ring.ackRead])
  return Object.assign(child, { closed: once(child, 'close') })
}

/** A toolLike writer's `blocks`, read through a new ring: every byte arrives, in order, and nothing fails. */
async function deliversAll(blocks: number[], options: { unmapped?: boolean } = {}) {
  const ring = recordRing()
  if (!ring) throw new Error('this machine cannot make a record ring (memfd_create)')
  const child = toolLike(ring, blocks, options)
  const reader = new StageCollector(100_000)
  const failures: unknown[] = []
  const { done } = readRing(ring, reader, () => {}, (e) => failures.push(e))
  await done
  await child.closed
  expect(failures).toEqual([])
  expectStream(reader, blocks)
}

/** The reader got exactly the stream toolLike wrote for `blocks`, in order. */
function expectStream(reader: StageCollector, blocks: number[]) {
  const bytes = blocks.reduce((a, b) => a + b, 0) * 16
  let sum = 0
  let weighted = 0
  for (let k = 0; k < bytes; k++) {
    sum += k % 251
    weighted = (weighted * 31 + (k % 251)) % 1_000_000_007
  }
  expect(reader.total).toBe(bytes)
  expect({ sum: reader.sum, weighted: reader.weighted }).toEqual({ sum, weighted })
}

describe('the record ring', () => {
  it('delivers every block in order through a staging buffer smaller than a block, far more blocks than the ring holds', async () => {
    await deliversAll([RING_BLOCK_RECORDS, 5, RING_BLOCK_RECORDS, 1, 17, RING_BLOCK_RECORDS, RING_BLOCK_RECORDS, 300, RING_BLOCK_RECORDS, 2, RING_BLOCK_RECORDS, 9])
  })

  it('a tool that could not map the ring says so first, and its stream then comes through the token pipe', async () => {
    await deliversAll([RING_BLOCK_RECORDS, RING_BLOCK_RECORDS, RING_BLOCK_RECORDS, RING_BLOCK_RECORDS, RING_BLOCK_RECORDS, 77], { unmapped: true })
  })

  it('a token naming an impossible block stops the reading with one clear error', async () => {
    const ring = recordRing()!
    const child = toolLike(ring, [3, RING_BLOCK_RECORDS + 1])
    const failures: unknown[] = []
    const reader = new StageCollector(100_000)
    const { done } = readRing(ring, reader, () => {}, (e) => failures.push(e))
    await done
    child.kill('SIGKILL')
    await child.closed
    expect(failures.map((e) => (e as Error).message)).toEqual([`the record ring announced a block of ${RING_BLOCK_RECORDS + 1} records`])
    expect(reader.total).toBe(3 * 16)
  })

  it('a reader that throws stops the reading once, and the writer is not left waiting forever', async () => {
    const ring = recordRing()!
    const child = toolLike(ring, Array(12).fill(RING_BLOCK_RECORDS))
    const failures: unknown[] = []
    const reader: StagingReader = {
      space: () => new Uint8Array(1024),
      received: () => {
        throw new Error('damaged stream')
      }
    }
    const { done } = readRing(ring, reader, () => {}, (e) => failures.push(e))
    await done
    // Our ends are closed: the writer's wait for an acknowledgement ends (end of file), and it exits.
    const ended = await Promise.race([child.closed.then(() => 'exited'), new Promise((r) => setTimeout(() => r('still waiting'), 10_000))])
    child.kill('SIGKILL')
    expect(failures.map((e) => (e as Error).message)).toEqual(['damaged stream'])
    expect(ended).toBe('exited')
  })
})

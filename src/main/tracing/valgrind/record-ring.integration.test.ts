/**
 * Stride's Valgrind tool on the record ring, started by hand as tool-launch.ts starts it: the
 * records come through the ring; and a tool that cannot map what it is given as the ring
 * says so in its log and sends the same records through the token pipe instead.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { example, fixedEnv, tempDir } from '../../testing/cli-runner'
import { closePipeEnd, recordPipe } from './record-pipe'
import { closeToolEnds, readRing, recordRing, RING_TOOL_ARGS } from './record-ring'
import { strideValgrindTool, toolCommand, type StrideTool } from './tool-build'
import { ToolStreamReader } from './tool-stream'
import { sinkWith } from '../../testing/tool-stream'

const env = fixedEnv(tempDir('record-ring'))
let tool: StrideTool

/** The accesses of the stream, hashed in order (the header's process id and the process's
 * maps differ between the two runs: the ring is one more mapping). */
function accessHasher() {
  const hash = createHash('sha256')
  const record = Buffer.alloc(16)
  let accesses = 0
  const sink = sinkWith({
    access(point, address, size, thread) {
      record.writeUInt32LE(point, 0)
      record.writeDoubleLE(address, 4)
      record.writeUInt16LE(size, 12)
      record.writeUInt16LE(thread, 14)
      hash.update(record)
      accesses++
    }
  })
  const reader = new ToolStreamReader(sink)
  return { reader, result: () => ({ accesses, digest: hash.digest('hex') }) }
}

/**
 * Runs the tool on micro's sequential_stores (a million stores: the ring goes round 30 times;
 * the function alone, since ld.so's start-up reads a stack table at random offsets) with a
 * ring; `unmappable`: its --ring-fd is a pipe instead of the ring's memory.
 */
async function run(unmappable: boolean) {
  const program = example('micro')
  const ring = recordRing()
  if (!ring) throw new Error('this machine cannot make a record ring (memfd_create)')
  const stand = unmappable ? recordPipe() : null
  const start = toolCommand(tool, ['--tool=stride', '--out-fd=3', '--log-fd=4', '--demangle=no', '--frames=no', '--fn=sequential_stores', ...RING_TOOL_ARGS, program])
  const child = spawn(start.command, start.args, { stdio: ['ignore', 'ignore', 'ignore', ring.tokenWrite, 'pipe', stand ? stand.readFd : ring.memFd, ring.ackRead], env: { ...env, ...tool.env } })
  closeToolEnds([ring.tokenWrite, ring.memFd, ring.ackRead])
  if (stand) {
    closePipeEnd(stand.readFd)
    closePipeEnd(stand.writeFd)
  }
  let log = ''
  child.stdio[4]!.on('data', (b: Buffer) => (log += b.toString()))
  const { reader, result } = accessHasher()
  const failures: unknown[] = []
  const { done } = readRing(ring, reader, () => {}, (e) => failures.push(e))
  const [[code]] = await Promise.all([once(child, 'close'), done])
  return { code, log, failures, ...result() }
}

describe("the tool's record ring", () => {
  beforeAll(() => {
    const built = strideValgrindTool()
    if (!built.ok) throw new Error(`Stride's Valgrind tool cannot be built here: ${built.reason}`)
    tool = built.tool
  })

  it('a ring the tool cannot map: it says so, and the same records come through the token pipe', async () => {
    const mapped = await run(false)
    const piped = await run(true)
    expect(mapped).toMatchObject({ code: 0, failures: [] })
    expect(mapped.accesses).toBeGreaterThanOrEqual(1_000_000)
    expect(mapped.log).not.toMatch(/cannot map/)
    expect(piped).toMatchObject({ code: 0, failures: [] })
    expect(piped.log).toMatch(/stride: cannot map the record ring \(error \d+\); the records go through the pipe/)
    expect(piped.accesses).toBe(mapped.accesses)
    expect(piped.digest).toBe(mapped.digest)
  })
})

import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { threadPoolSize } from './thread-pool'

describe('the thread pool size', () => {
  it("is two on machines of fewer than four cores, libuv's default from four, and never overrides the user", () => {
    expect(threadPoolSize(1, undefined)).toBe(2)
    expect(threadPoolSize(2, undefined)).toBe(2)
    expect(threadPoolSize(3, undefined)).toBe(3)
    expect(threadPoolSize(4, undefined)).toBeNull()
    expect(threadPoolSize(64, undefined)).toBeNull()
    expect(threadPoolSize(2, '8')).toBeNull()
  })

  it('takes effect when set and removed before the first queued work, as sizeThreadPool does, and leaves no variable behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stride-pool-'))
    try {
      const fifo = join(dir, 'fifo')
      execFileSync('mkfifo', [fifo])
      // Opening a FIFO with no writer holds one pool thread; a stat queued after it completes
      // only if the pool has a second thread. The FIFO is then opened for writing to free it.
      const statRuns = (size: string) => {
        const r = spawnSync(
          process.execPath,
          [
            '-e',
            `const fs = require('fs')
             process.env.UV_THREADPOOL_SIZE = ${JSON.stringify(size)}; fs.stat('.', () => {}); delete process.env.UV_THREADPOOL_SIZE
             let stated = false
             fs.open(${JSON.stringify(fifo)}, 'r', (e, fd) => { if (!e) fs.closeSync(fd) })
             fs.stat('.', () => { stated = true })
             setTimeout(() => { console.log(JSON.stringify({ stated, env: process.env.UV_THREADPOOL_SIZE ?? null })); fs.closeSync(fs.openSync(${JSON.stringify(fifo)}, 'w')) }, 300)`
          ],
          { encoding: 'utf8', timeout: 20_000 }
        )
        return JSON.parse(r.stdout) as { stated: boolean; env: string | null }
      }
      expect(statRuns('1')).toEqual({ stated: false, env: null })
      expect(statRuns('2')).toEqual({ stated: true, env: null })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

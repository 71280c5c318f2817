import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { decodeThreadRuns, encodeThreadRuns, ThreadCursor, threadRunsOf, threadsOf } from './thread-runs'
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from './session-writer'
import { openSessionDb, readThreadRuns } from './session-reader'

const dir = mkdtempSync(join(tmpdir(), 'stride-threads-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('thread runs', () => {
  it('are the runs of equal threads, in order', () => {
    expect([...threadRunsOf([1, 1, 2, 2, 2, 1, 3], 7)]).toEqual([1, 2, 2, 3, 1, 1, 3, 1])
    expect([...threadRunsOf([4], 1)]).toEqual([4, 1])
    expect(threadRunsOf([], 0).length).toBe(0)
    expect(threadsOf(Uint32Array.from([3, 1, 1, 5, 3, 2]))).toEqual([1, 3])
    // The pairwise scan of a Uint16Array agrees with the plain one, at every split and offset.
    for (let n = 1; n < 12; n++)
      for (let at = 0; at <= n; at++) {
        const plain = Array.from({ length: n }, (_, i) => (i < at ? 7 : 9))
        const buffer = new Uint16Array(n + 2)
        for (const offset of [0, 1]) {
          const view = buffer.subarray(offset, offset + n)
          view.set(plain)
          expect([...threadRunsOf(view, n)]).toEqual([...threadRunsOf(plain, n)])
        }
      }
  })

  it('round-trip through their blob, bound to the chunk', () => {
    const runs = Uint32Array.from([1, 10, 2, 5])
    const blob = encodeThreadRuns(3, 100, 15, runs)
    expect([...(decodeThreadRuns(3, 100, 15, blob) as Uint32Array)]).toEqual([...runs])
    // Moved to another chunk, or counts that do not add up: damage.
    expect(decodeThreadRuns(4, 100, 15, blob)).toMatch(/checksum/)
    expect(decodeThreadRuns(3, 100, 16, blob)).toMatch(/checksum/)
    const flipped = Buffer.from(blob)
    flipped[8] ^= 1
    expect(decodeThreadRuns(3, 100, 15, flipped)).toMatch(/checksum/)
    expect(decodeThreadRuns(3, 100, 15, blob.subarray(0, 10))).toMatch(/pairs/)
    expect(decodeThreadRuns(0, 0, 5, encodeThreadRuns(0, 0, 5, Uint32Array.from([1, 4])))).toMatch(/hold 4 accesses/)
  })

  it('give each access its thread across slices', () => {
    const cursor = new ThreadCursor(Uint32Array.from([1, 3, 2, 2, 1, 1]))
    const a = new Uint32Array(4)
    cursor.fill(a, 4)
    const b = new Uint32Array(2)
    cursor.fill(b, 2)
    expect([...a, ...b]).toEqual([1, 1, 1, 2, 2, 1])
    expect(() => cursor.fill(b, 1)).toThrow(/more accesses/)
  })

  it('are stored with each chunk by the writer, across its chunk boundaries, and read back for the trace', () => {
    const path = join(dir, 'w.stride')
    const w = new SessionWriter(path, { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
    const table: PointRecord[] = [{ idx: 0, pc: 0x401000, kind: 0, accesses: 0, firstAddress: 0 }]
    // Two batches: thread 1 then 2 across the first chunk's end, then thread 3.
    const n = MAX_STORED_CHUNK
    const first = new Uint16Array(n).fill(1)
    first.fill(2, n - 10)
    const second = new Uint16Array(100).fill(2)
    second.fill(3, 50)
    for (const threads of [first, second]) {
      table[0]!.accesses += threads.length
      w.appendChunk(threads.length, new Uint32Array(threads.length), Float64Array.from({ length: threads.length }, (_, i) => 0x10000 + i * 8), new Uint16Array(threads.length).fill(8), table, undefined, threads)
    }
    w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
    const db = openSessionDb(path, { readonly: true })
    try {
      expect([...readThreadRuns(db)!]).toEqual([1, n - 10, 2, 10, 2, 50, 3, 50])
    } finally {
      db.close()
    }
  })

  it('are unknown when a batch came without them, and damage is named', () => {
    const path = join(dir, 'none.stride')
    const w = new SessionWriter(path, { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
    const table: PointRecord[] = [{ idx: 0, pc: 0x401000, kind: 0, accesses: 4, firstAddress: 0 }]
    w.appendChunk(4, new Uint32Array(4), Float64Array.from([1, 2, 3, 4]), new Uint16Array(4).fill(8), table)
    w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
    const db = openSessionDb(path)
    try {
      expect(readThreadRuns(db)).toBeNull()
      db.prepare('UPDATE trace_chunks SET threads = ?').run(encodeThreadRuns(0, 0, 4, Uint32Array.from([1, 3])))
      expect(() => readThreadRuns(db)).toThrow(/chunk.*thread runs hold 3 accesses/)
    } finally {
      db.close()
    }
  })
})

/**
 * The stream metrics a session stores (kept by the native encoder while writing) equal the
 * ones computed afterwards from its stored chunks (the path for sessions traced before they
 * were stored) and the TypeScript reference over the same accesses.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { RsdMetrics } from '../compress/rsd-metrics'
import { MAX_STORED_CHUNK, SessionWriter } from './session-writer'
import { openSessionDb, readPoints } from './session-reader'
import { SessionStatics } from './session-statics'
import { computeFunctionStreams, readPointStreams, sessionStreams } from './stream-store'

const dir = mkdtempSync(join(tmpdir(), 'stride-streams-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('stored stream metrics', () => {
  it('equal the metrics recomputed from the stored chunks and the reference model', async () => {
    const path = join(dir, 's.stride')
    const w = new SessionWriter(path, { program: 'p', args: [], backend: 'valgrind', functions: [], createdAt: '2026-11-22' })
    const pointCount = 4
    const n = MAX_STORED_CHUNK + 5000 // two chunks: RSDs continue across the boundary
    const points = new Uint32Array(n)
    const addresses = new Float64Array(n)
    const sizes = new Uint16Array(n).fill(8)
    const reference = new RsdMetrics(pointCount)
    let seed = 7
    for (let i = 0; i < n; i++) {
      const p = i % pointCount
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      points[i] = p
      addresses[i] = p === 3 ? 0x9000 + (seed % 512) * 8 : p * 0x100000 + (i % (100 + p * 37)) * (8 << p)
      reference.add(p, addresses[i]!)
    }
    const records = [0, 1, 2, 3].map((idx) => ({ idx, pc: 0x1000 + idx, kind: 0, accesses: 0, firstAddress: 0 }))
    for (let at = 0; at < n; at += 65536) {
      const k = Math.min(65536, n - at)
      w.appendChunk(k, points.subarray(at, at + k), addresses.subarray(at, at + k), sizes.subarray(at, at + k), records)
    }
    w.commitAll()
    w.writeStreamMetrics(await computeFunctionStreams(w.db, [null, null, null, null]))
    w.writePoints(records, [], [])
    w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })

    const db = openSessionDb(path)
    try {
      const stored = readPointStreams(db)
      expect(stored.size).toBe(pointCount)
      const want = reference.finish()
      expect([...stored.values()].map((s) => [s.point, s.accesses, s.streams])).toEqual(want.map((m) => [m.point, m.accesses, m.streams]))
      expect(stored.get(3)!.regularity).toBeLessThan(0.2)
      expect(stored.get(0)!.regularity).toBeGreaterThan(0.9)
      // The point table carries them, unless asked not to (the CLI's reports never show them).
      expect(readPoints(db).map((p) => p.streams?.regularity)).toEqual([0, 1, 2, 3].map((p) => stored.get(p)!.regularity))
      const without = readPoints(db, { streams: false })
      expect(without.every((p) => p.streams === undefined)).toBe(true)
      expect(without.map((p) => p.id)).toEqual(readPoints(db).map((p) => p.id))
      expect(new SessionStatics({ streams: false }).points(db).every((p) => p.streams === undefined)).toBe(true)
      expect(new SessionStatics().points(db).every((p) => p.streams !== undefined)).toBe(true)
      db.prepare('DELETE FROM point_streams').run()
      const recomputed = (await sessionStreams(db, [null, null, null, null])).points
      expect(recomputed).toEqual(stored)
    } finally {
      db.close()
    }
  })
})

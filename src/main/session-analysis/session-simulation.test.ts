/** eachStoredChunk: every chunk once, in order, with the caller's own reads beside the first decode. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { StrideError } from '../../shared/errors'
import { openDb } from '../store/open-db'
import { openSessionDb } from '../store/session-reader'
import { MAX_STORED_CHUNK } from '../store/session-writer'
import { writeFullChunks } from '../testing/stored-chunks'
import { eachStoredChunk } from './session-simulation'

const dir = mkdtempSync(join(tmpdir(), 'stride-each-chunk-'))

const threeChunks = (name: string) => writeFullChunks(join(dir, `${name}.stride`), 3)

const countPoints = (db: ReturnType<typeof openDb>) => db.prepare('SELECT COUNT(*) FROM points').pluck().get() as number

describe('eachStoredChunk', () => {
  it("runs `meanwhile` before the first chunk is handed over, and the caller may read the session then and between chunks", async () => {
    const db = openSessionDb(threeChunks('whole'), { readonly: true })
    const order: string[] = []
    let next = 0x10000
    const done = await eachStoredChunk(
      db,
      1,
      (chunk) => {
        // The caller's own reads go on while the chunks are read.
        expect(countPoints(db)).toBe(1)
        order.push('chunk')
        for (let i = 0; i < chunk.count; i++) if (chunk.addresses[i] !== next + 8 * i) throw new Error(`access ${i} of a chunk out of order`)
        next += 8 * chunk.count
      },
      () => true,
      0,
      async () => {
        await new Promise((r) => setTimeout(r, 20))
        order.push(`meanwhile ${countPoints(db)}`)
      }
    )
    expect(done).toBe(3 * MAX_STORED_CHUNK)
    expect(next).toBe(0x10000 + 8 * 3 * MAX_STORED_CHUNK)
    expect(order[0]).toBe('meanwhile 1')
    expect(order.filter((o) => o === 'chunk').length).toBeGreaterThanOrEqual(3)
    db.close()
  })

  it('reports a damaged first chunk when it is reached, after `meanwhile`, as the one clean error naming it', async () => {
    const path = threeChunks('damaged')
    const w = openDb(path)
    w.prepare('UPDATE trace_chunks SET data = substr(data, 1, 20) WHERE seq = 0').run()
    w.close()
    const db = openSessionDb(path, { readonly: true })
    let meanwhile = false
    const run = eachStoredChunk(db, 1, () => {}, () => true, 0, async () => {
      // Long enough for the first decode to have failed before it is awaited.
      await new Promise((r) => setTimeout(r, 50))
      meanwhile = true
    })
    await expect(run).rejects.toThrow(StrideError)
    await expect(run).rejects.toThrow(/damaged at chunk 1 of 3/)
    expect(meanwhile).toBe(true)
    // No chunk is read any more; the connection is usable and closes.
    expect(countPoints(db)).toBe(1)
    db.close()
  })

  it('stops between chunks when asked, and a failing `meanwhile` ends it with that failure', async () => {
    const db = openSessionDb(threeChunks('stopped'), { readonly: true })
    const done = await eachStoredChunk(db, 1, () => {}, () => false, 0)
    expect(done).toBeGreaterThan(0)
    expect(done).toBeLessThan(3 * MAX_STORED_CHUNK)
    await expect(eachStoredChunk(db, 1, () => {}, () => true, 0, () => Promise.reject(new Error('no points')))).rejects.toThrow('no points')
    expect(countPoints(db)).toBe(1)
    db.close()
  })
})

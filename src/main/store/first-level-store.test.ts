/**
 * The kept first level's stream blocks: each stored as encoded or compressed, whichever its
 * start says, and read back to the same bytes; a stream past its budget is dropped and the
 * session says so, so that no later what-if keeps it again.
 */
import { randomBytes } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { blockBytes, blockForm, firstLevelDeclined, FirstLevelStreamWriter } from './first-level-store'
import { openMemoryDb, type Db } from './open-db'

/** A loop kernel's misses: the same event over and over (a line further each time). */
const regular = (n: number) => Uint8Array.from({ length: n }, (_, i) => [1, 3, 128, 1, 34][i % 5]!)

const rows = (db: Db) => db.prepare('SELECT seq, data FROM first_level_stream ORDER BY seq').all() as Array<{ seq: number; data: Uint8Array }>

describe('the kept first-level stream', () => {
  it('compresses a block only where its start shrinks to half: a loop kernel\'s, not irregular misses', () => {
    expect(blockForm(regular(100_000))).toBe(1)
    expect(blockForm(randomBytes(100_000))).toBe(0)
    expect(blockForm(regular(200))).toBe(0) // too short to be worth a try
  })

  it('reads each block back to the bytes handed over, in order, under the CRC-32s it keeps', async () => {
    const db = openMemoryDb()
    const writer = new FirstLevelStreamWriter(db, () => 0)
    const blocks = [regular(50_000), randomBytes(40_000), regular(200), randomBytes(70_000)]
    for (const b of blocks) writer.block(b)
    const checksums = await writer.written()
    const stored = rows(db)
    expect(stored.map((r) => r.seq)).toEqual([1, 2, 3, 4])
    expect(checksums).toEqual(stored.map((r) => crc32(r.data)))
    expect(stored.map((r) => r.data[0])).toEqual([1, 0, 0, 0])
    expect(stored[0]!.data.length).toBeLessThan(5_000)
    stored.forEach((r, i) => expect(Buffer.from(blockBytes(r.data)!).equals(Buffer.from(blocks[i]!))).toBe(true))
    expect(blockBytes(Uint8Array.of(7, 1, 2))).toBeNull()
    expect(blockBytes(Uint8Array.of(1, 1, 2, 3))).toBeNull() // not brotli
    expect(firstLevelDeclined(db)).toBe(false)
  })

  it('drops a stream that outgrows its budget, and the session says it was declined', async () => {
    const db = openMemoryDb()
    let trace = 1_000
    const writer = new FirstLevelStreamWriter(db, () => trace, { floor: 10_000, ratio: 4 })
    writer.block(randomBytes(6_000))
    trace = 2_000 // the trace grows too: 8,000 bytes allowed now, or the floor
    writer.block(randomBytes(3_000))
    expect(await writer.written()).toEqual([expect.any(Number), expect.any(Number)])
    expect(firstLevelDeclined(db)).toBe(false)
    writer.block(randomBytes(2_000)) // 11,000 bytes: past both
    writer.block(randomBytes(10))
    expect(await writer.written()).toBeNull()
    expect(rows(db)).toEqual([])
    expect(firstLevelDeclined(db)).toBe(true)
  })
})

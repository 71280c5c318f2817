/**
 * The session writer's background encoding (what Stride's Valgrind tool tracer uses) stores
 * exactly what the synchronous writer stores: the same chunks byte for byte, the same points
 * with the same access counts, the same metadata; and its flow control says when to pause.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb } from './open-db'
import { StoredChunkVariables } from './chunk-variables'
import { iterateChunks, readPointKinds } from './session-reader'
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from './session-writer'

const dir = mkdtempSync(join(tmpdir(), 'stride-writer-'))
const META = { program: '/bin/true', args: [], backend: 'valgrind' as const, functions: [], createdAt: 'x' }
const BATCH = 1 << 16

/** A tracer's batches: points appear over time (the table grows), strided and random addresses. */
function* batches(total: number): Generator<{ n: number; points: Uint32Array; addresses: Float64Array; sizes: Uint16Array; table: PointRecord[] }> {
  const table: PointRecord[] = []
  let x = 12345
  for (let done = 0; done < total; done += BATCH) {
    const n = Math.min(BATCH, total - done)
    const points = new Uint32Array(n)
    const addresses = new Float64Array(n)
    const sizes = new Uint16Array(n).fill(8)
    // One new point every batch: chunks name points first seen in them.
    const known = 3 + Math.floor(done / BATCH)
    while (table.length < known) table.push({ idx: table.length, pc: 0x401000 + table.length * 4, kind: table.length % 3, accesses: 0, firstAddress: 0 })
    for (let i = 0; i < n; i++) {
      const p = (done + i) % known
      points[i] = p
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      addresses[i] = p % 2 === 0 ? 0x10000 + (done + i) * 8 : 0x7f0000000000 + ((x >>> 0) % 65536) * 8
      if (table[p]!.accesses++ === 0) table[p]!.firstAddress = addresses[i]!
    }
    yield { n, points, addresses, sizes, table }
  }
}

function contents(path: string) {
  const db = openDb(path, { readonly: true })
  try {
    return {
      chunks: db.prepare('SELECT seq, first_event, events, codec, hex(data) AS data, crc32, point_count FROM trace_chunks ORDER BY seq').all(),
      points: db.prepare('SELECT idx, pc, kind, accesses, first_address FROM points ORDER BY idx').all(),
      meta: db.prepare("SELECT key, value FROM meta WHERE key IN ('events', 'storedBytes', 'partial', 'stopReason') ORDER BY key").all()
    }
  } finally {
    db.close()
  }
}

describe('session writer: background encoding', () => {
  it('stores the synchronous writer\'s chunks, points and metadata exactly, pausing the tracer when two chunks wait', async () => {
    const total = 5 * MAX_STORED_CHUNK + 12345
    const sync = new SessionWriter(join(dir, 'sync.stride'), META)
    for (const b of batches(total)) sync.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
    sync.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })

    const bg = new SessionWriter(join(dir, 'bg.stride'), META)
    bg.encodeInBackground()
    let pauses = 0
    for (const b of batches(total)) {
      bg.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
      expect(bg.eventCount).toBeGreaterThan(0)
      if (bg.backlogged) {
        pauses++
        await bg.ready()
        expect(bg.backlogged).toBe(false)
      }
    }
    expect(() => bg.commitAll()).toThrow(/still encoding/)
    await bg.drain()
    expect(bg.eventCount).toBe(total)
    bg.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })

    const a = contents(join(dir, 'sync.stride'))
    const b = contents(join(dir, 'bg.stride'))
    expect(a.chunks.length).toBe(6)
    expect(b).toEqual(a)
    // The batches arrive faster than chunks compress: the writer said to pause at least once.
    expect(pauses).toBeGreaterThan(0)
  })

  it('stores each access\'s data structure beside its chunk, in the background or not, and feeds it; a chunk without it gets none', async () => {
    const total = 2 * MAX_STORED_CHUNK + 777
    // A point's structure changes with the address' region (two structures for the random points).
    const variableOf = (p: number, a: number) => (p % 2 === 0 ? 1 + p : a > 0x7f0000040000 ? 100 : 101)
    const expected: number[] = []
    const fed: number[] = []
    for (const background of [false, true]) {
      const path = join(dir, `columns-${background}.stride`)
      const w = new SessionWriter(path, META)
      if (background) {
        w.encodeInBackground()
        w.feedChunks({
          feed: async (n, _p, _a, _s, _t, variables) => {
            for (let i = 0; i < n; i++) fed.push(variables ? variables[i]! : -1)
          }
        })
      }
      for (const b of batches(total)) {
        const variables = Int32Array.from(b.points, (p, i) => variableOf(p, b.addresses[i]!))
        if (!background) for (const v of variables) expected.push(v)
        w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table, undefined, undefined, variables)
        if (w.backlogged) await w.ready()
      }
      await w.drain()
      w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
      const db = openDb(path, { readonly: true })
      const columns = StoredChunkVariables.open(db, 1000)!
      const read: number[] = []
      const points = readPointKinds(db).length
      for (const c of iterateChunks(db, points)) for (const v of columns.read(c, points)) read.push(v)
      db.close()
      expect(read).toEqual(expected)
    }
    // Fed are the sealed chunks (the last one is committed by finish, not fed).
    expect(fed).toEqual(expected.slice(0, fed.length))
    expect(fed.length).toBe(2 * MAX_STORED_CHUNK)
    // One batch without its column: that chunk has none, so the session is read without any.
    const w = new SessionWriter(join(dir, 'partial-columns.stride'), META)
    let k = 0
    for (const b of batches(MAX_STORED_CHUNK + 10)) w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table, undefined, undefined, k++ === 1 ? undefined : new Int32Array(b.n))
    w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
    const db = openDb(join(dir, 'partial-columns.stride'), { readonly: true })
    expect(db.prepare('SELECT seq FROM chunk_variables').pluck().all()).toEqual([1])
    expect(StoredChunkVariables.open(db)).toBeNull()
    db.close()
  })

  it('stores the same from the tracer\'s counts (appendChunk\'s `counts`) as from its records\' counts, which may then lag', async () => {
    const total = 3 * MAX_STORED_CHUNK + 777
    const byRecords = new SessionWriter(join(dir, 'records.stride'), META)
    byRecords.encodeInBackground()
    for (const b of batches(total)) {
      byRecords.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
      if (byRecords.backlogged) await byRecords.ready()
    }
    await byRecords.drain()
    // Before the end too: every committed chunk's points carry their counts then.
    const recordsMid = contents(join(dir, 'records.stride'))
    byRecords.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })

    const byCounts = new SessionWriter(join(dir, 'counts.stride'), META)
    byCounts.encodeInBackground()
    // The tracer's table whose records' counts stay 0 until the end, and its counts by index.
    const stale: PointRecord[] = []
    let last: PointRecord[] = []
    for (const b of batches(total)) {
      while (stale.length < b.table.length) stale.push({ ...b.table[stale.length]!, accesses: 0 })
      const counts = new Float64Array(b.table.length + 5) // longer than the table, as a grown array is
      b.table.forEach((p, i) => (counts[i] = p.accesses))
      byCounts.appendChunk(b.n, b.points, b.addresses, b.sizes, stale, counts)
      if (byCounts.backlogged) await byCounts.ready()
      last = b.table
    }
    await byCounts.drain()
    expect(contents(join(dir, 'counts.stride'))).toEqual(recordsMid)
    stale.forEach((p, i) => (p.accesses = last[i]!.accesses))
    byCounts.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
    expect(contents(join(dir, 'counts.stride'))).toEqual(contents(join(dir, 'records.stride')))
  })

  it('while a chunk encodes the file holds the committed ones and reads; discarding mid-encode writes nothing after', async () => {
    const path = join(dir, 'abandoned.stride')
    const w = new SessionWriter(path, META)
    w.encodeInBackground()
    for (const b of batches(2 * MAX_STORED_CHUNK)) w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
    await w.drain()
    for (const b of batches(MAX_STORED_CHUNK)) w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
    // The third chunk is on the thread pool now; what a crash here would leave:
    const during = contents(path)
    expect(during.chunks.map((c) => (c as { events: number }).events)).toEqual([MAX_STORED_CHUNK, MAX_STORED_CHUNK])
    expect(during.meta).toContainEqual({ key: 'events', value: String(2 * MAX_STORED_CHUNK) })
    // The points' access counts are those of the committed chunks, not of what is still encoding.
    expect((during.points as Array<{ accesses: number }>).reduce((n, p) => n + p.accesses, 0)).toBe(2 * MAX_STORED_CHUNK)
    // Discarded mid-encode: the late result must not touch the closed (removed) file.
    w.discard()
    await new Promise((r) => setTimeout(r, 300))
    expect(() => openDb(path, { readonly: true })).toThrow()
  })

  it('a chunk that fails to encode stops the writer with its reason; the chunks before it stay, nothing is thrown unhandled', async () => {
    const path = join(dir, 'failed.stride')
    const w = new SessionWriter(path, META)
    w.encodeInBackground()
    const unhandled: unknown[] = []
    const onUnhandled = (e: unknown) => unhandled.push(e)
    process.on('unhandledRejection', onUnhandled)
    try {
      const good = [...batches(2 * MAX_STORED_CHUNK)]
      for (const b of good) w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
      // A chunk naming a point beyond the table the tracer hands with it: the encoder refuses it.
      const bad = good[good.length - 1]!
      const n = MAX_STORED_CHUNK
      w.appendChunk(n, new Uint32Array(n).fill(bad.table.length + 7), new Float64Array(n).fill(0x1000), new Uint16Array(n).fill(8), bad.table)
      // And one more full chunk after it, already on its way.
      for (const b of batches(MAX_STORED_CHUNK)) w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
      await expect(w.drain()).rejects.toThrow(/point/)
      await expect(w.ready()).rejects.toThrow(/point/)
      await new Promise((r) => setTimeout(r, 50))
      expect(unhandled).toEqual([])
      expect(contents(path).chunks.map((c) => (c as { seq: number }).seq)).toEqual([0, 1])
      w.discard()
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('feeds every sealed chunk once, in order, and lends its arrays to no later chunk until the feed is done', async () => {
    const total = 5 * MAX_STORED_CHUNK + 999
    const w = new SessionWriter(join(dir, 'fed.stride'), META)
    const fed: number[] = []
    let reused = 0
    // One chunk at a time, in order, as a feed such as LiveSimulation takes them; `tail` is the last one's.
    const started: Promise<void> = Promise.resolve()
    let tail = started
    // The first feed lasts until every batch is appended: later chunks are sealed, encoded and
    // committed meanwhile, so the writer must say it is backlogged and must not reuse its arrays.
    let open = () => {}
    const gate = new Promise<void>((r) => (open = r))
    w.feedChunks({
      feed(count, points, addresses) {
        const first = tail === started
        tail = tail.then(async () => {
          const copy = Float64Array.from(addresses.subarray(0, count))
          await (first ? gate : new Promise((r) => setTimeout(r, 10)))
          if (!copy.every((a, i) => a === addresses[i])) reused++
          for (let i = 0; i < count; i++) fed.push(addresses[i]!)
          if (points.length < count) reused++
        })
        return tail
      }
    })
    w.encodeInBackground()
    const sent: number[] = []
    let backlogged = 0
    for (const b of batches(total)) {
      w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
      for (let i = 0; i < b.n; i++) sent.push(b.addresses[i]!)
      // Not pausing for the feed but letting every encode finish: the first feed's arrays would
      // be lent to the next chunk if the encoder alone released them.
      if (w.backlogged) backlogged++
      await w.drain()
    }
    open()
    await w.commitAllInBackground()
    // The last feed may still run after the commit; its user awaits it.
    await tail
    expect(reused).toBe(0)
    expect(fed.length).toBe(total)
    expect(fed).toEqual(sent)
    expect(backlogged).toBeGreaterThan(0)
    w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  })
  it('feeds every feeder every sealed chunk, and lends the arrays of a chunk to no later chunk until the slowest feed is done', async () => {
    const total = 3 * MAX_STORED_CHUNK + 77
    const w = new SessionWriter(join(dir, 'fed-twice.stride'), META)
    const feeder = (delay: number) => {
      const seen: number[] = []
      let reused = 0
      let tail: Promise<void> = Promise.resolve()
      return {
        seen,
        reused: () => reused,
        tail: () => tail,
        feed(count: number, _points: Uint32Array, addresses: Float64Array) {
          tail = tail.then(async () => {
            const copy = Float64Array.from(addresses.subarray(0, count))
            await new Promise((r) => setTimeout(r, delay))
            if (!copy.every((a, i) => a === addresses[i])) reused++
            for (let i = 0; i < count; i++) seen.push(addresses[i]!)
          })
          return tail
        }
      }
    }
    const quick = feeder(0)
    const slow = feeder(40)
    w.feedChunks(quick)
    w.feedChunks(slow)
    w.encodeInBackground()
    const sent: number[] = []
    for (const b of batches(total)) {
      w.appendChunk(b.n, b.points, b.addresses, b.sizes, b.table)
      for (let i = 0; i < b.n; i++) sent.push(b.addresses[i]!)
      await w.drain()
    }
    await w.commitAllInBackground()
    await Promise.all([quick.tail(), slow.tail()])
    expect(quick.seen).toEqual(sent)
    expect(slow.seen).toEqual(sent)
    expect(quick.reused() + slow.reused()).toBe(0)
    w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  })
})

/**
 * A bounded fuzzer (fixed seed) over stored chunks and session metadata: every damaged input
 * ends in a StrideError or, where the damage is harmless, the same trace; never a hang, a
 * crash of another kind, or a silently different trace while the chunk has its checksum.
 */
import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { StrideError } from '../../shared/errors'
import { NativePrsdSequiturEncoder, PRSD_CODEC, PRSD_CODEC_V2, PRSD_CODEC_V3, PRSD_CODEC_V4 } from '../compress/native-codec'
import { openDb } from './open-db'
import { boundChecksum } from './integrity'
import { iterateChunks, iterateChunksAhead, openSessionDb, readRuns, readSessionInfo } from './session-reader'
import { SessionWriter, type PointRecord } from './session-writer'
import { writeFullChunks } from '../testing/stored-chunks'
import { rng } from '../testing/seeded-rng'

const dir = mkdtempSync(join(tmpdir(), 'stride-fuzz-'))
const CASES = 300


/**
 * One chunk mixing regular strides, a nest and irregular addresses, like a real kernel, as
 * the writer stores it (v3), or as older Strides stored it (codecs v1 and v2: re-encoded in place).
 */
function baseSession(codec: string, name = `base-${codec}`): string {
  const path = join(dir, `${name}.stride`)
  const w = new SessionWriter(path, { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
  const random = rng(7)
  const n = 6000
  const table: PointRecord[] = [0, 1, 2, 3].map((p) => ({ idx: p, pc: 0x401000 + p, kind: p & 1, accesses: 0, firstAddress: 0 }))
  const points = new Uint32Array(n)
  const addresses = new Float64Array(n)
  const sizes = new Uint16Array(n)
  for (let i = 0; i < n; i++) {
    const p = i % 4
    points[i] = p
    table[p]!.accesses++
    addresses[i] = p === 0 ? 0x10000 + i * 8 : p === 1 ? 0x200000 + ((i >> 6) * 512 + (i & 63) * 8) : p === 2 ? 0x300000 + Math.floor(random() * 65536) * 8 : 0x7ffd0000
    sizes[i] = p === 3 ? 4 : 8
  }
  w.appendChunk(n, points, addresses, sizes, table)
  w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  const db = openDb(path)
  expect((db.prepare('SELECT codec FROM trace_chunks').get() as { codec: string }).codec).toBe(PRSD_CODEC_V4)
  if (codec !== PRSD_CODEC_V4) {
    const data = new NativePrsdSequiturEncoder(n, { version: codec === PRSD_CODEC ? 1 : codec === PRSD_CODEC_V2 ? 2 : 3 }).encode(n, points, addresses, sizes, table.length)
    db.prepare('UPDATE trace_chunks SET data = ?, codec = ?, checksum = ? WHERE seq = 0').run(data, codec, boundChecksum(0, 0, n, table.length, codec, data))
  }
  db.close()
  return path
}

function trace(path: string): string {
  const db = openSessionDb(path, { readonly: true })
  try {
    readSessionInfo(db, path)
    readRuns(db)
    const points = (db.prepare('SELECT COUNT(*) AS n FROM points').get() as { n: number }).n
    const parts: string[] = []
    for (const c of iterateChunks(db, points)) parts.push(Buffer.from(c.points.buffer, c.points.byteOffset, c.count * 4).toString('base64'), Buffer.from(c.addresses.buffer, c.addresses.byteOffset, c.count * 8).toString('base64'), Buffer.from(c.sizes.buffer, c.sizes.byteOffset, c.count * 2).toString('base64'))
    return parts.join('|')
  } finally {
    db.close()
  }
}

/**
 * The same, through the read-ahead iterator (the simulator's): the trace, or the error's
 * message. `reuse`: chunks decoded into two sets of arrays taken in turn, each copied out
 * before the next chunk is asked for, as its callers do.
 */
async function traceAhead(path: string, reuse = false, depth = 1): Promise<string> {
  const db = openSessionDb(path, { readonly: true })
  try {
    const points = (db.prepare('SELECT COUNT(*) AS n FROM points').get() as { n: number }).n
    const parts: string[] = []
    for await (const c of iterateChunksAhead(db, points, { reuse, depth })) parts.push(Buffer.from(c.points.buffer, c.points.byteOffset, c.count * 4).toString('base64'), Buffer.from(c.addresses.buffer, c.addresses.byteOffset, c.count * 8).toString('base64'), Buffer.from(c.sizes.buffer, c.sizes.byteOffset, c.count * 2).toString('base64'))
    return parts.join('|')
  } catch (e) {
    if (!(e instanceof StrideError)) throw e
    return `error: ${e.message}`
  } finally {
    db.close()
  }
}

function mutate(data: Buffer, random: () => number): Buffer {
  const out = Buffer.from(data)
  switch (Math.floor(random() * 4)) {
    case 0: // bit flips
      for (let k = 1 + Math.floor(random() * 4); k > 0; k--) out[Math.floor(random() * out.length)]! ^= 1 << Math.floor(random() * 8)
      return out
    case 1: // truncation
      return out.subarray(0, Math.floor(random() * out.length))
    case 2: // a run of random bytes
      for (let at = Math.floor(random() * out.length), k = 1 + Math.floor(random() * 32); k > 0 && at < out.length; k--, at++) out[at] = Math.floor(random() * 256)
      return out
    default: // a header field made large (counts, lengths)
      out[1 + Math.floor(random() * Math.min(8, out.length - 1))] = 0xff
      return out
  }
}

describe.each([PRSD_CODEC_V4, PRSD_CODEC_V3, PRSD_CODEC_V2, PRSD_CODEC])('fuzzing stored %s chunks (fixed seed)', (codec) => {
  const base = baseSession(codec)
  const original = trace(base)

  it('the intact session reads back its trace, as stored', async () => {
    expect(original.length).toBeGreaterThan(6000)
    expect(trace(base)).toBe(trace(baseSession(codec === PRSD_CODEC ? PRSD_CODEC_V4 : PRSD_CODEC, `other-${codec}`)))
    expect(await traceAhead(base)).toBe(original)
    expect(await traceAhead(base, true)).toBe(original)
  })

  it(`${CASES} damaged chunks: a clean error or the same trace; never a hang or a different trace (both chunk readers, same outcome)`, async () => {
    const random = rng(2026)
    const outcomes = { error: 0, same: 0, differentWithoutChecksum: 0 }
    const started = Date.now()
    for (let k = 0; k < CASES; k++) {
      const path = join(dir, `chunk-${codec}-${k}.stride`)
      copyFileSync(base, path)
      const db = openDb(path)
      const row = db.prepare('SELECT data FROM trace_chunks WHERE seq = 0').get() as { data: Buffer }
      const keepChecksum = k % 2 === 0 // odd cases: as an older session, without checksums
      db.prepare(`UPDATE trace_chunks SET data = ?${keepChecksum ? '' : ', checksum = NULL'} WHERE seq = 0`).run(mutate(row.data, random))
      if (!keepChecksum) {
        // As the upgrade leaves a session from before v9: no check on any chunk, no digests.
        db.prepare('UPDATE trace_chunks SET checksum = NULL, crc32 = NULL, point_count = NULL').run()
        db.prepare("DELETE FROM integrity WHERE key IN ('points', 'meta')").run()
        db.prepare("UPDATE integrity SET value = 'none' WHERE key = 'chunks'").run()
      }
      db.close()
      const caseStarted = Date.now()
      let result: string | null = null
      let failure = ''
      try {
        result = trace(path)
      } catch (e) {
        if (!(e instanceof StrideError)) throw new Error(`case ${k}: not a clean error: ${(e as Error).stack}`)
        expect((e as Error).message.split('\n')).toHaveLength(1)
        failure = `error: ${e.message}`
        outcomes.error++
      }
      expect(await traceAhead(path), `case ${k}: the read-ahead reader differs`).toBe(result ?? failure)
      expect(await traceAhead(path, true), `case ${k}: the read-ahead reader into reused arrays differs`).toBe(result ?? failure)
      expect(Date.now() - caseStarted, `case ${k} took too long`).toBeLessThan(5000)
      if (result !== null) {
        if (result === original) outcomes.same++
        else if (keepChecksum) throw new Error(`case ${k}: a damaged chunk with its checksum read as a different trace`)
        else outcomes.differentWithoutChecksum++
      }
    }
    expect(outcomes.error).toBeGreaterThan(CASES / 2)
    expect(Date.now() - started).toBeLessThan(60_000)
  }, 120_000)
})

describe('fuzzing stored chunks and metadata (fixed seed)', () => {
  const base = baseSession(PRSD_CODEC_V4)

  it('a damaged or missing chunk in the middle: both readers fail alike, naming it; an intact session reads the same', async () => {
    const path = writeFullChunks(join(dir, 'three.stride'), 3)
    const intact = trace(path)
    const check = openDb(path)
    expect((check.prepare('SELECT COUNT(*) AS n FROM trace_chunks').get() as { n: number }).n).toBe(3)
    check.close()
    expect(await traceAhead(path)).toBe(intact)
    // Into reused arrays: chunk 2 is decoded into chunk 0's, after chunk 0 was read.
    expect(await traceAhead(path, true)).toBe(intact)
    // Two and three chunks decoding ahead (the simulator's), into three and four sets in turn.
    expect(await traceAhead(path, true, 2)).toBe(intact)
    expect(await traceAhead(path, true, 3)).toBe(intact)
    // A reader stopped part-way (a cancelled simulation) leaves the connection usable and closable.
    const partial = openSessionDb(path, { readonly: true })
    let seen = 0
    for await (const c of iterateChunksAhead(partial, 1)) {
      seen += c.count
      break
    }
    expect(seen).toBeGreaterThan(0)
    expect((partial.prepare('SELECT COUNT(*) AS n FROM trace_chunks').get() as { n: number }).n).toBe(3)
    partial.close()
    for (const damage of ['UPDATE trace_chunks SET data = substr(data, 1, 20) WHERE seq = 1', 'DELETE FROM trace_chunks WHERE seq = 1']) {
      const copy = join(dir, 'three-damaged.stride')
      copyFileSync(path, copy)
      const db = openDb(copy)
      db.prepare(damage).run()
      db.close()
      const sync = (() => {
        try {
          trace(copy)
          return 'read'
        } catch (e) {
          return `error: ${(e as Error).message}`
        }
      })()
      expect(sync).toMatch(/chunk 1|chunk 2/)
      expect(await traceAhead(copy)).toBe(sync)
      expect(await traceAhead(copy, true)).toBe(sync)
      expect(await traceAhead(copy, true, 2)).toBe(sync)
    }
  })

  it('chunks decoding one, two and three ahead into arrays taken in turn: the same trace as read one by one', async () => {
    // Six chunks: each set of arrays is taken again at least once at every depth.
    const path = writeFullChunks(join(dir, 'six.stride'), 6)
    const intact = trace(path)
    for (const depth of [1, 2, 3]) {
      expect(await traceAhead(path, true, depth)).toBe(intact)
      expect(await traceAhead(path, false, depth)).toBe(intact)
    }
  })

  it('damaged metadata: a clean error or a readable session', () => {
    const random = rng(99)
    const keys = ['program', 'args', 'events', 'partial', 'stopReason', 'functions', 'storedBytes']
    const values = ['{', 'null', '"x"', '-1', '1e400', '[]', '{"a":1}', "'", '', '9007199254740993']
    for (let k = 0; k < 100; k++) {
      const path = join(dir, `meta-${k}.stride`)
      copyFileSync(base, path)
      const db = openDb(path)
      db.prepare('UPDATE meta SET value = ? WHERE key = ?').run(values[Math.floor(random() * values.length)]!, keys[Math.floor(random() * keys.length)]!)
      if (k % 3 === 0) db.prepare("INSERT INTO runs (created_at, config, accesses) VALUES ('x', ?, 0)").run(values[Math.floor(random() * values.length)]!)
      db.close()
      try {
        trace(path)
      } catch (e) {
        if (!(e instanceof StrideError)) throw new Error(`metadata case ${k}: not a clean error: ${(e as Error).stack}`)
      }
    }
  })
})

/**
 * Seeded mutations of a small real session (issue 51): its chunks, point table, meta table,
 * schema and raw SQLite pages, each read as the commands read it (info, the point table and
 * kinds, an export's records, the simulator's read-ahead). Every outcome is either the intact
 * session's output, or one line saying the session is damaged (no stack, no internal error);
 * never a different output, never a hang.
 */
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { errorLine, MAX_ERROR_LINE } from '../cli/error-line'
import { checkPointValues } from './integrity'
import { iterateChunks, iterateChunksAhead, openSessionDb, readPointKinds, readPoints, readRuns, readSessionInfo } from './session-reader'
import { MAX_STORED_CHUNK, SessionWriter, type PointRecord } from './session-writer'
import { rng } from '../testing/seeded-rng'
import { DAMAGE_WORDS, DAMAGED_PARTS, mutateSession } from '../testing/session-mutations'

const dir = mkdtempSync(join(tmpdir(), 'stride-integrity-fuzz-'))
const CASES = 520


/** Two chunks (a full one and a short one) of five points: strides, a nest, random indexing. */
function baseSession(): string {
  const path = join(dir, 'base.stride')
  const w = new SessionWriter(path, { program: '/bin/kernel', args: ['-n', '3'], backend: 'valgrind', functions: ['kernel'], createdAt: '2026-01-01T00:00:00Z' })
  const random = rng(11)
  const n = MAX_STORED_CHUNK + 3000
  const table: PointRecord[] = [0, 1, 2, 3, 4].map((p) => ({ idx: p, pc: 0x401000 + p * 6, kind: p % 3, accesses: 0, firstAddress: 0 }))
  const points = new Uint32Array(n)
  const addresses = new Float64Array(n)
  const sizes = new Uint16Array(n)
  for (let i = 0; i < n; i++) {
    const p = i % 5
    points[i] = p
    table[p]!.accesses++
    addresses[i] = p === 0 ? 0x10000 + i * 8 : p === 1 ? 0x200000 + ((i >> 6) * 512 + (i & 63) * 8) : p === 2 ? 0x300000 + Math.floor(random() * 65536) * 8 : p === 3 ? 0x7ffd0000 : 0x500000 + (i % 977) * 16
    sizes[i] = p === 3 ? 4 : 8
  }
  w.appendChunk(n, points, addresses, sizes, table)
  w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: false, debugInfoHint: null })
  return path
}

/** What the commands print of a session, as one digest: info, points, an export's records, the simulator's read. */
async function outputOf(path: string): Promise<string> {
  const db = openSessionDb(path, { readonly: true })
  try {
    const hash = createHash('sha256')
    const { path: _, ...info } = readSessionInfo(db, path)
    hash.update(JSON.stringify(info)).update(JSON.stringify(readRuns(db)))
    const points = readPoints(db)
    hash.update(JSON.stringify(points))
    const kinds = readPointKinds(db)
    const { pcs } = checkPointValues(db, path)
    // export: u64 pc, u64 address, u32 size, u32 kind per access.
    for (const c of iterateChunks(db, points.length)) {
      const rec = Buffer.alloc(c.count * 24)
      for (let i = 0; i < c.count; i++) {
        const p = c.points[i]!
        rec.writeBigUInt64LE(BigInt(pcs[p]!), i * 24)
        rec.writeBigUInt64LE(BigInt(c.addresses[i]!), i * 24 + 8)
        rec.writeUInt32LE(c.sizes[i]!, i * 24 + 16)
        rec.writeUInt32LE(kinds[p]!, i * 24 + 20)
      }
      hash.update(rec)
    }
    // simulate: kinds and the read-ahead into reused arrays.
    const sim = createHash('sha256')
    for await (const c of iterateChunksAhead(db, kinds.length, { reuse: true })) {
      sim.update(Buffer.from(c.points.buffer, c.points.byteOffset, c.count * 4))
      sim.update(Buffer.from(c.addresses.buffer, c.addresses.byteOffset, c.count * 8))
      sim.update(Buffer.from(c.sizes.buffer, c.sizes.byteOffset, c.count * 2))
    }
    return `${hash.digest('hex')}:${sim.digest('hex')}`
  } finally {
    db.close()
  }
}

describe('seeded mutations of a session: the same output or one line saying it is damaged', () => {
  const base = baseSession()

  it(`${CASES} mutations of chunks, points, meta, schema and pages`, async () => {
    const original = await outputOf(base)
    expect(readFileSync(base).length).toBeGreaterThan(4096)
    const random = rng(51)
    const outcomes = { refused: 0, same: 0 }
    const byPart: Record<string, number> = {}
    const started = Date.now()
    for (let k = 0; k < CASES; k++) {
      const path = join(dir, `case-${k % 8}.stride`)
      copyFileSync(base, path)
      const part = mutateSession(path, random)
      const caseStarted = Date.now()
      let output: string | null = null
      try {
        output = await outputOf(path)
      } catch (e) {
        const { line } = errorLine('info', e, path)
        if (/internal error/.test(line)) throw new Error(`case ${k} (${part}): not a clean error: ${(e as Error).stack}`)
        expect(line.includes('\n'), `case ${k}: one line`).toBe(false)
        expect(line.length).toBeLessThanOrEqual(MAX_ERROR_LINE)
        expect(line, `case ${k} (${part}): says what is wrong`).toMatch(DAMAGE_WORDS)
        outcomes.refused++
        byPart[part] = (byPart[part] ?? 0) + 1
      }
      expect(Date.now() - caseStarted, `case ${k} took too long`).toBeLessThan(3000)
      if (output !== null) {
        if (output !== original) throw new Error(`case ${k} (${part}): a damaged session read back as a different output`)
        outcomes.same++
      }
    }
    expect(outcomes.refused).toBeGreaterThan(CASES / 2)
    for (const part of DAMAGED_PARTS) expect(byPart[part] ?? 0, part).toBeGreaterThan(20)
    expect(Date.now() - started).toBeLessThan(60_000)
  }, 120_000)
})

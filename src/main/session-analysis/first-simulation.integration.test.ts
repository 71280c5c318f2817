/**
 * FirstSimulation over a real recorded session: a stop cancels it and stores nothing, a
 * hierarchy it cannot build says why (the caller then simulates as before), and the run it
 * stores reads back as simulate's.
 */
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDb } from '../store/open-db'
import { readRuns } from '../store/session-reader'
import { buildReport } from '../store/runs'
import { SessionStatics } from '../store/session-statics'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'
import { FirstSimulation } from './first-simulation'

const dir = tempDir('first-sim')
const env = fixedEnv(dir)
const recorded = join(dir, 'conflict.stride')
strideOk(['trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--out', recorded], env)
const L1 = { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' as const }], tlb: [], cachegrindCompatible: true }

/**
 * A copy of the session (the first simulation stores into the file it is given), its point
 * count, and its points' groups as the trace's worker makes them (one per data structure).
 */
function copy(name: string): { path: string; points: number; groups: Int32Array; groupCount: number } {
  const path = join(dir, name)
  copyFileSync(recorded, path)
  const db = openDb(path, { readonly: true })
  const names = db.prepare('SELECT variable FROM points ORDER BY idx').pluck().all() as Array<string | null>
  db.close()
  const index = new Map<string | null, number>()
  const groups = Int32Array.from(names, (n) => index.get(n) ?? (index.set(n, index.size), index.size - 1))
  return { path, points: names.length, groups, groupCount: index.size }
}

describe('FirstSimulation', () => {
  it('stores the run of its hierarchy, as simulate stores it', async () => {
    const { path, groups, groupCount } = copy('stored.stride')
    expect(groupCount).toBeGreaterThanOrEqual(3) // S1, S2, S3
    const first = new FirstSimulation(L1, () => {})
    first.start(path, Promise.resolve(), groups, groupCount)
    const db = openDb(path)
    try {
      expect(await first.store(db)).toEqual({ run: 1 })
      expect(readRuns(db).map((r) => r.run)).toEqual([1])
    } finally {
      db.close()
    }
    const report = (run: number) => {
      const r = JSON.parse(strideOk(['report', path, '--run', String(run), '--by', 'reference', '--json'], env)) as Record<string, unknown>
      delete r.run
      return r
    }
    strideOk(['simulate', path, '--cache', 'L1:32K:8:64', '--cachegrind-compatible'], env)
    expect(report(1)).toEqual(report(2))
    // Its report, from the rows and statics it kept, is the one read afresh from the file.
    const fresh = openDb(path, { readonly: true })
    try {
      expect(JSON.stringify(first.report(path))).toBe(JSON.stringify(buildReport(fresh, 1, new SessionStatics())))
    } finally {
      fresh.close()
    }
    // Fed no chunk while a program ran: it simulated the stored trace.
    expect(first.liveReason).toBe('no chunk was fed')
  })

  it('a stop cancels it: nothing is stored, and it says so', async () => {
    const { path, points } = copy('stopped.stride')
    const first = new FirstSimulation(L1, () => {})
    first.start(path, Promise.resolve(), new Int32Array(points), 1)
    first.stop()
    const db = openDb(path)
    try {
      expect(await first.store(db)).toEqual({ run: null, cancelled: true, why: 'cancelled' })
      expect(readRuns(db)).toEqual([])
    } finally {
      db.close()
    }
  })

  it('says why when it cannot simulate (the caller then simulates as before), and when the trace was not stored whole', async () => {
    const { path, points } = copy('refused.stride')
    const bad = new FirstSimulation({ levels: [{ name: 'L1', size: 49152, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false }, () => {})
    bad.start(path, Promise.resolve(), new Int32Array(points), 1)
    const lost = new FirstSimulation(L1, () => {})
    lost.start(path, Promise.reject(new Error('encode failed')), new Int32Array(points), 1)
    const mismatch = new FirstSimulation(L1, () => {})
    mismatch.start(path, Promise.resolve(), new Int32Array(points + 1), 1)
    const db = openDb(path)
    try {
      expect(await bad.store(db)).toMatchObject({ run: null, cancelled: false, why: expect.stringMatching(/power of two/) })
      expect(await lost.store(db)).toEqual({ run: null, cancelled: false, why: 'the trace was not stored whole' })
      expect(await mismatch.store(db)).toMatchObject({ run: null, cancelled: false, why: expect.stringMatching(/points/) })
      expect(readRuns(db)).toEqual([])
    } finally {
      db.close()
    }
  })
})

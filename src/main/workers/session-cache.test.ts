/**
 * The warm worker's session cache, through the tasks that use it (run in-process): a what-if
 * and its report share one session's statics, and the report is the one read afresh; a
 * session changed on disk, or replaced, is read again; two sessions never mix; at most
 * `capacity` sessions are kept.
 */
import { mkdtempSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HierarchyConfig } from '../../shared/domain'
import { openDb } from '../store/open-db'
import { buildReport } from '../store/runs'
import { SessionWriter, type PointRecord } from '../store/session-writer'
import { SessionCache } from './session-cache'
import type { TaskContext } from './protocol'
import { reportTask } from './tasks/report-task'
import { simulateTask } from './tasks/simulate-task'

const dir = mkdtempSync(join(tmpdir(), 'stride-session-cache-'))
const CONFIG: HierarchyConfig = { levels: [{ name: 'L1', size: 1024, assoc: 2, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false }

/** A finished session of 4 points in function `fn`, 20,000 strided accesses. */
function session(name: string, fn: string): string {
  const path = join(dir, `${name}.stride`)
  const w = new SessionWriter(path, { program: `/bin/${name}`, args: [], backend: 'valgrind', functions: [fn], createdAt: 'x' })
  const n = 20_000
  const table: PointRecord[] = Array.from({ length: 4 }, (_, idx) => ({ idx, pc: 0x401000 + idx * 4, kind: idx % 2, accesses: 0, firstAddress: 0 }))
  const points = new Uint32Array(n)
  const addresses = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    points[i] = i % 4
    addresses[i] = 0x10000 + (i % 4) * 0x100000 + Math.floor(i / 4) * 8
    if (table[i % 4]!.accesses++ === 0) table[i % 4]!.firstAddress = addresses[i]!
  }
  w.appendChunk(n, points, addresses, new Uint16Array(n).fill(8), table)
  w.finish({ partial: false, stopReason: 'completed', stopMessage: null, hasDebugInfo: true, debugInfoHint: null })
  rename(path, fn)
  return path
}

/** Names every point of the session after `fn` (what another process changing the file does). */
function rename(path: string, fn: string): void {
  const db = openDb(path)
  try {
    db.prepare("UPDATE points SET function = ?, ref_id = ? || '_' || idx").run(fn, fn)
  } finally {
    db.close()
  }
}

const context = (sessions: SessionCache): TaskContext => ({ progress: () => {}, shouldStop: () => false, sessions })

async function whatIf(path: string, ctx: TaskContext) {
  const { runs } = await simulateTask({ session: path, configs: [CONFIG] }, ctx)
  return reportTask({ session: path, run: runs[0]! }, ctx)
}

const functions = (report: { references: Array<{ function: string | null }> }) => [...new Set(report.references.map((r) => r.function))]

/** File times tick every few ms: a change made later than that is one any stamp shows. */
const later = () => new Promise((r) => setTimeout(r, 30))

describe('session cache', () => {
  it('a what-if and its report share the session statics, and the report is the one read afresh', async () => {
    const path = session('shared', 'kernel')
    const cache = new SessionCache()
    const statics = cache.get(path)
    const report = await whatIf(path, context(cache))
    // The run this worker stored did not make the statics stale.
    expect(cache.get(path)).toBe(statics)
    expect(report.references).toHaveLength(4)
    const db = openDb(path, { readonly: true })
    try {
      expect(report).toEqual(buildReport(db, report.run))
    } finally {
      db.close()
    }
  })

  it('re-reads a session changed on disk between two requests', async () => {
    const path = session('changed', 'before')
    const cache = new SessionCache()
    const ctx = context(cache)
    expect(functions(await whatIf(path, ctx))).toEqual(['before'])
    const statics = cache.get(path)
    await later()
    rename(path, 'after')
    const report = await reportTask({ session: path, run: null }, ctx)
    expect(functions(report)).toEqual(['after'])
    expect(report.references[0]!.id).toBe('after_0')
    expect(cache.get(path)).not.toBe(statics)
  })

  it('re-reads a session replaced by another file, even after storing a run in the old one', async () => {
    const path = session('replaced', 'old')
    const other = session('replacement', 'new')
    const cache = new SessionCache()
    const statics = cache.get(path)
    renameSync(other, path)
    cache.wrote(path, statics)
    expect(cache.get(path)).not.toBe(statics)
    expect(functions(await whatIf(path, context(cache)))).toEqual(['new'])
  })

  it('keeps two sessions apart', async () => {
    const a = session('a', 'in_a')
    const b = session('b', 'in_b')
    const ctx = context(new SessionCache())
    expect(functions(await whatIf(a, ctx))).toEqual(['in_a'])
    expect(functions(await whatIf(b, ctx))).toEqual(['in_b'])
    expect(functions(await reportTask({ session: a, run: null }, ctx))).toEqual(['in_a'])
    expect(functions(await reportTask({ session: b, run: null }, ctx))).toEqual(['in_b'])
  })

  it('keeps at most its capacity, dropping the least recently used', () => {
    const [a, b, c] = ['lru-a', 'lru-b', 'lru-c'].map((name) => session(name, name.replace('-', '_')))
    const cache = new SessionCache(2)
    const sa = cache.get(a!)
    const sb = cache.get(b!)
    expect(cache.get(a!)).toBe(sa)
    cache.get(c!) // b is the least recently used
    expect(cache.get(a!)).toBe(sa)
    expect(cache.get(b!)).not.toBe(sb)
  })
})

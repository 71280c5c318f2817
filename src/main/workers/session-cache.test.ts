/**
 * The warm worker's session cache, through the tasks that use it (run in-process): a what-if
 * and its report share one session's statics, and the report is the one read afresh; runs
 * stored by another process keep them; a session replaced by another recording (renamed or
 * copied over it) or an unfinished one that changed is read again; two sessions never mix;
 * at most `capacity` sessions are kept.
 */
import { copyFileSync, mkdtempSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { textOf } from '../services/json-text'
import type { HierarchyConfig, RunReport } from '../../shared/domain'
import { writeDigests } from '../store/integrity'
import { openDb } from '../store/open-db'
import { UNFINISHED_MESSAGE } from '../store/recording-state'
import { buildReport } from '../store/runs'
import { SessionWriter, type PointRecord } from '../store/session-writer'
import { SessionCache } from './session-cache'
import type { TaskContext } from './protocol'
import { reportTask } from './tasks/report-task'
import { simulateTask } from './tasks/simulate-task'

const dir = mkdtempSync(join(tmpdir(), 'stride-session-cache-'))
const CONFIG: HierarchyConfig = { levels: [{ name: 'L1', size: 1024, assoc: 2, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false }

/** A finished recording of 4 points in function `fn`, 20,000 strided accesses. */
function session(name: string, fn: string): string {
  const path = join(dir, `${name}.stride`)
  const w = new SessionWriter(path, { program: `/bin/${name}`, args: [], backend: 'valgrind', functions: [fn], createdAt: `2026-11-24T12:00:00.000Z ${name}` })
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
  edit(path, (db) => db.prepare("UPDATE points SET function = ?, ref_id = ? || '_' || idx").run(fn, fn))
  return path
}

/** A change as a writer of the session makes it: its digests written again after (store/integrity.ts). */
function edit(path: string, change: (db: ReturnType<typeof openDb>) => void): void {
  const db = openDb(path)
  try {
    change(db)
    writeDigests(db)
  } finally {
    db.close()
  }
}

const context = (sessions: SessionCache): TaskContext => ({ progress: () => {}, partial: () => {}, shouldStop: () => false, sessions })

/** The statics the cache hands out for `path` now. */
function staticsOf(cache: SessionCache, path: string) {
  const { db, statics } = cache.open(path)
  db.close()
  return statics
}

/** A report as the client receives it (the task's JSON bytes). */
async function report(path: string, run: number | null, ctx: TaskContext): Promise<RunReport> {
  return JSON.parse(textOf(await reportTask({ session: path, run }, ctx))) as RunReport
}

async function whatIf(path: string, ctx: TaskContext) {
  const { runs } = await simulateTask({ session: path, configs: [CONFIG] }, ctx)
  return report(path, runs[0]!, ctx)
}

const functions = (report: { references: Array<{ function: string | null }> }) => [...new Set(report.references.map((r) => r.function))]

/** File times tick every few ms: a change made later than that is one any stamp shows. */
const later = () => new Promise((r) => setTimeout(r, 30))

describe('session cache', () => {
  it('a what-if and its report share the session statics, and the report is the one read afresh', async () => {
    const path = session('shared', 'kernel')
    const cache = new SessionCache()
    const statics = staticsOf(cache, path)
    const ctx = context(cache)
    const { runs } = await simulateTask({ session: path, configs: [CONFIG] }, ctx)
    const text = textOf(await reportTask({ session: path, run: runs[0]! }, ctx))
    expect(staticsOf(cache, path)).toBe(statics)
    expect((JSON.parse(text) as RunReport).references).toHaveLength(4)
    const db = openDb(path, { readonly: true })
    try {
      expect(text).toBe(JSON.stringify(buildReport(db, runs[0]!)))
    } finally {
      db.close()
    }
  })

  it('keeps them when another process stores runs in the session', async () => {
    const path = session('others', 'kernel')
    const cache = new SessionCache()
    const statics = staticsOf(cache, path)
    await later()
    await whatIf(path, context(new SessionCache())) // another worker or the CLI
    expect(staticsOf(cache, path)).toBe(statics)
  })

  it('re-reads a session replaced by another recording, copied or renamed over it', async () => {
    const path = session('replaced', 'first')
    const cache = new SessionCache()
    const ctx = context(cache)
    expect(functions(await whatIf(path, ctx))).toEqual(['first'])
    await later()
    copyFileSync(session('copied', 'second'), path) // same file, new content
    expect(functions(await whatIf(path, ctx))).toEqual(['second'])
    await later()
    renameSync(session('renamed', 'third'), path)
    expect(functions(await whatIf(path, ctx))).toEqual(['third'])
  })

  it('re-reads an unfinished session that changed on disk, and keeps it while it does not', async () => {
    const path = session('unfinished', 'before')
    edit(path, (db) => db.prepare("UPDATE meta SET value = ? WHERE key = 'stopMessage'").run(JSON.stringify(UNFINISHED_MESSAGE)))
    const cache = new SessionCache()
    const ctx = context(cache)
    expect(functions(await whatIf(path, ctx))).toEqual(['before'])
    const statics = staticsOf(cache, path)
    expect(staticsOf(cache, path)).toBe(statics)
    await later()
    edit(path, (db) => db.prepare("UPDATE points SET function = 'after'").run())
    expect(functions(await report(path, null, ctx))).toEqual(['after'])
    expect(staticsOf(cache, path)).not.toBe(statics)
  })

  it('keeps two sessions apart', async () => {
    const a = session('a', 'in_a')
    const b = session('b', 'in_b')
    const ctx = context(new SessionCache())
    expect(functions(await whatIf(a, ctx))).toEqual(['in_a'])
    expect(functions(await whatIf(b, ctx))).toEqual(['in_b'])
    expect(functions(await report(a, null, ctx))).toEqual(['in_a'])
    expect(functions(await report(b, null, ctx))).toEqual(['in_b'])
  })

  it('keeps at most its capacity, dropping the least recently used', () => {
    const [a, b, c] = ['lru-a', 'lru-b', 'lru-c'].map((name) => session(name, name.replace('-', '_')))
    const cache = new SessionCache(2)
    const sa = staticsOf(cache, a!)
    const sb = staticsOf(cache, b!)
    expect(staticsOf(cache, a!)).toBe(sa)
    staticsOf(cache, c!) // b is the least recently used
    expect(staticsOf(cache, a!)).toBe(sa)
    expect(staticsOf(cache, b!)).not.toBe(sb)
  })
})

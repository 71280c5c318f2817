/** Run labels in a session file: a what-if's parent and a user's label persist; older runs read derived labels. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HierarchyConfig } from '../../shared/domain'
import { EXTRA_FIELDS } from '../simulate/hierarchy'
import { openDb } from './open-db'
import { renameRun, setRunParent, storeRun, type SimulationResult } from './runs'
import { migrate } from './schema'
import { openSessionDb, readRuns } from './session-reader'

const l1 = { name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' as const }

function result(config: HierarchyConfig): SimulationResult {
  return {
    config,
    accesses: 10,
    totals: [{ name: 'L1', reads: 10, writes: 0, readMisses: 1, writeMisses: 0 }],
    pointStats: new Float64Array(0),
    pointCount: 0,
    extras: new Float64Array(EXTRA_FIELDS),
    evictors: [[]],
    timeline: [],
    timelineInterval: null
  }
}

function sessionWithRuns(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'stride-labels-')), 's.stride')
  const db = openDb(path, { create: true })
  migrate(db)
  storeRun(db, result({ levels: [l1], cachegrindCompatible: false }))
  const two = storeRun(db, result({ levels: [{ ...l1, prefetch: 'stride' }], cachegrindCompatible: false }))
  setRunParent(db, two, 1)
  storeRun(db, result({ levels: [{ ...l1, prefetch: 'stride', size: 65536 }], cachegrindCompatible: false }))
  db.close()
  return path
}

describe('run labels in the store', () => {
  it('derives labels against the parent, else the first run', () => {
    const path = sessionWithRuns()
    const db = openSessionDb(path, { readonly: true })
    try {
      expect(readRuns(db).map((r) => [r.run, r.parent, r.name, r.label])).toEqual([
        [1, null, null, 'L1 32K 8-way 64B'],
        [2, 1, null, '+ stride prefetcher on L1'],
        [3, null, null, 'L1 64K (was 32K), + stride prefetcher on L1']
      ])
    } finally {
      db.close()
    }
  })

  it('keeps a rename across reopening, and goes back to the derived label when cleared', () => {
    const path = sessionWithRuns()
    let db = openSessionDb(path)
    renameRun(db, 2, 'stride pf, first try')
    db.close()
    db = openSessionDb(path, { readonly: true })
    expect(readRuns(db).find((r) => r.run === 2)).toMatchObject({ name: 'stride pf, first try', label: 'stride pf, first try' })
    db.close()
    db = openSessionDb(path)
    renameRun(db, 2, null)
    expect(readRuns(db).find((r) => r.run === 2)).toMatchObject({ name: null, label: '+ stride prefetcher on L1' })
    expect(() => renameRun(db, 9, 'x')).toThrow(/Run 9 is not in this session/)
    db.close()
  })

  it('upgrades a v10 session: its runs have no parent and no label', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'stride-labels-')), 'old.stride')
    const db = openDb(path, { create: true })
    migrate(db)
    // Back to v10's runs table, as a session written before labels has it (and v12's integrity, v13's, v14's, v15's and v16's additions).
    db.exec('DROP TABLE view_cache; ALTER TABLE variables DROP COLUMN dims_from; ALTER TABLE trace_chunks DROP COLUMN threads; ALTER TABLE runs DROP COLUMN parent; ALTER TABLE runs DROP COLUMN label; ALTER TABLE trace_chunks DROP COLUMN checksum; DROP TABLE integrity; DROP TABLE chunk_variables; DROP TABLE run_touches')
    db.pragma('user_version = 10')
    db.prepare("INSERT INTO runs (created_at, config, accesses) VALUES ('2024-01-01', ?, 5)").run(JSON.stringify({ levels: [l1], cachegrindCompatible: false }))
    migrate(db)
    expect(readRuns(db)).toMatchObject([{ run: 1, parent: null, name: null, label: 'L1 32K 8-way 64B' }])
    db.close()
  })
})

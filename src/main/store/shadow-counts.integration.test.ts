/**
 * The shadow counts a trace's first simulation keeps (shadow-counts.ts): `stride trace --cache`
 * stores them beside run 1, `stride advise` reads them, and its advice is byte for byte the
 * advice of a replay of the trace (the same session without the table, and a what-if run of
 * the same cache, which keeps none). A row taken for another trace length is not used. The
 * function's trace is cold (`--no-context`): a run warmed by the whole program keeps no shadow
 * (it would need the rest of the program's accesses too).
 */
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const home = tempDir('shadow-counts')
const env = fixedEnv(home)
const advise = (session: string, ...args: string[]) => strideOk(['advise', session, '--json', ...args], env)
const rows = (session: string) => {
  const db = new Database(session, { readonly: true })
  try {
    return db.prepare('SELECT run, level, points, events FROM shadow_counts ORDER BY run').all() as Array<{ run: number; level: string; points: number; events: number }>
  } finally {
    db.close()
  }
}

describe('shadow counts kept by the first simulation', () => {
  let session: string
  beforeAll(() => {
    session = join(home, 'conflict.stride')
    strideOk(['trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--no-context', '--out', session, '--cache', 'L1:128K:2:128', '--cache', 'L2:1M:8:128'], env)
  })

  it('are stored for run 1 and its first level only', () => {
    const kept = rows(session)
    expect(kept).toHaveLength(1)
    expect(kept[0]).toMatchObject({ run: 1, level: 'L1' })
    expect(kept[0]!.points).toBeGreaterThan(0)
    expect(kept[0]!.events).toBeGreaterThan(10_000)
  })

  it('give the advice a replay of the trace gives', () => {
    const stored = advise(session)
    const replayed = join(home, 'replayed.stride')
    copyFileSync(session, replayed)
    const db = new Database(replayed)
    db.exec('DROP TABLE shadow_counts')
    db.close()
    expect(advise(replayed)).toBe(stored)
    // The conflict example's cycle is called a conflict from the stored counts too.
    expect((JSON.parse(stored) as { items: Array<{ diagnosis: string }> }).items[0]!.diagnosis).toBe('conflict')
    // A what-if of the same cache keeps none: its advice comes from run 1's counts (the first
    // level's shadow depends only on the trace and the level's geometry), equal but for the run.
    strideOk(['simulate', session, '--cache', 'L1:128K:2:128', '--cache', 'L2:1M:8:128'], env)
    expect(rows(session)).toHaveLength(1)
    const whatIf = JSON.parse(advise(session, '--run', '2')) as { run: number }
    expect({ ...whatIf, run: 1 }).toEqual(JSON.parse(stored))
  })

  it("serve another run of the same first level's geometry, and no other", () => {
    const path = join(home, 'geometry.stride')
    copyFileSync(session, path)
    strideOk(['simulate', path, '--cache', 'L1:128K:2:128'], env) // run 2 (or later): same L1
    strideOk(['simulate', path, '--cache', 'L1:64K:2:128'], env) // another L1
    const runs = (JSON.parse(strideOk(['info', path, '--json'], env)) as { runs: Array<{ run: number }> }).runs.map((r) => r.run)
    const [same, other] = runs.slice(-2)
    const before = { same: advise(path, '--run', String(same)), other: advise(path, '--run', String(other)) }
    const db = new Database(path)
    db.prepare('UPDATE shadow_counts SET shadow = zeroblob(length(shadow)), cold = zeroblob(length(cold))').run()
    db.close()
    // Read for the run of the same geometry (its advice follows the changed counts); not for the other.
    expect(advise(path, '--run', String(same))).not.toBe(before.same)
    expect(advise(path, '--run', String(other))).toBe(before.other)
  })

  it('are read, but not for a trace of another length, nor when damaged', () => {
    const zeroed = (name: string, extra: string) => {
      const path = join(home, `${name}.stride`)
      copyFileSync(session, path)
      const db = new Database(path)
      // Counts in which the shadow never missed: every miss would be called a conflict. The
      // diagnosis the trace stored (view_cache) goes, so that advise derives it from the counts.
      db.prepare(`UPDATE shadow_counts SET shadow = zeroblob(length(shadow)), cold = zeroblob(length(cold))${extra}`).run()
      db.prepare('DELETE FROM view_cache').run()
      db.close()
      return advise(path, '--run', '1')
    }
    const good = advise(session, '--run', '1')
    // Read: the advice follows the stored counts.
    expect(zeroed('read', '')).not.toBe(good)
    // Taken for a trace of another length, or of the wrong size: ignored, the trace replayed.
    expect(zeroed('longer', ', events = events + 1')).toBe(good)
    expect(zeroed('short', ', cold = zeroblob(3)')).toBe(good)
  })
})

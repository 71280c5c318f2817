/**
 * A trace's first run keeps its first cache level (stream and state), and a what-if that changes
 * only the levels below it follows that level instead of replaying the trace: the run it stores
 * is the replay's, figure for figure (report JSON), per data structure (heap tracked) and with a
 * data TLB; another first level leaves the what-if to the replay, and so does a damaged block,
 * whose replay keeps a whole first level in its place. A session without one (a function's
 * trace warmed by the rest of the program, an older session) keeps the first level its first
 * replay simulates.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { hasTable, openDb } from '../store/open-db'
import { firstLevelDeclined, readFirstLevel } from '../store/first-level-store'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'
import { copiedWith } from '../testing/session-mutations'
import { followsStored } from './stored-first-level'
import { timelineIntervalOf } from './session-simulation'

const dir = tempDir('stored-first-level')
const env = fixedEnv(dir)

const figures = ({ run: _run, ...rest }: RunReport) => rest

/** A copy of `session` with `sql` run on it (the state removed: the what-if replays). */
const copyWith = (session: string, name: string, sql: string): string => copiedWith(session, join(dir, name), sql)

function whatIf(session: string, caches: string[], extra: string[] = []): RunReport {
  return JSON.parse(strideOk(['simulate', session, ...caches.flatMap((c) => ['--cache', c]), ...extra, '--json'], env)) as RunReport
}

/** The session's stored first level, and whether `caches` (with `tlb`) can follow it. */
async function stored(session: string, caches: string[], tlb: string[] = [], compatible = false) {
  const db = openDb(session, { readonly: true })
  try {
    if (!hasTable(db, 'first_level_state')) return null
    // Kept by the built CLI: read under its build's identity (the sources' is another).
    const identity = db.prepare('SELECT identity FROM first_level_state').pluck().get()
    if (typeof identity !== 'string') return null
    const s = readFirstLevel(db, (JSON.parse(identity.split('#')[0]!) as string[])[2])
    if (!s) return null
    const parse = (spec: string) => {
      const [name, size, assoc, line] = spec.split(':')
      return { name: name!, size: Number(size), assoc: Number(assoc), lineSize: Number(line), policy: 'lru' as const }
    }
    const config = { levels: caches.map(parse), tlb: tlb.map((t) => { const [name, entries, assoc, page] = t.split(':'); return { name: name!, entries: Number(entries), assoc: Number(assoc), pageSize: Number(page) } }), cachegrindCompatible: compatible }
    // Every block reads back (the caller's damaged copy: the first does not).
    const blocksRead = await Promise.all(Array.from({ length: s.blocks }, async (_, i) => (await s.block(i)) !== null))
    return { blocks: s.blocks, blocksRead, follows: followsStored(s, config, s.state.accesses, timelineIntervalOf(config, s.state.accesses), s.state.byTouch), state: s.state }
  } finally {
    db.close()
  }
}

describe('a what-if below the first run\'s first level', () => {
  it('follows the stored first level and stores the replay\'s run (heap tracked, a data TLB, three levels)', async () => {
    const session = join(dir, 'randidx.stride')
    strideOk(['trace', '--launch', example('randidx'), '--out', session, '--cache', 'D1:4096:4:64', '--cache', 'LL:65536:8:64', '--tlb', 'DTLB:16:4:4096'], env)
    const tlb = ['DTLB:16:4:4096']
    const sweep = [['D1:4096:4:64', 'LL:262144:16:64'], ['D1:4096:4:64', 'L2:16384:4:128', 'L3:524288:8:64']]
    const replays: RunReport[] = []
    for (const caches of sweep) {
      const s = await stored(session, caches, tlb)
      expect(s?.follows, caches.join(' ')).toBe(true)
      expect(s!.state.byTouch).toBe(true)
      expect(s!.blocksRead.every(Boolean) && s!.blocks > 0).toBe(true)
      const followed = whatIf(session, caches, tlb.flatMap((t) => ['--tlb', t]))
      const replayed = whatIf(copyWith(session, 'replay.stride', 'DELETE FROM first_level_state'), caches, tlb.flatMap((t) => ['--tlb', t]))
      expect(figures(followed), caches.join(' ')).toEqual(figures(replayed))
      replays.push(replayed)
    }
    // Both in one sweep (each block read once for both): the same runs.
    const both = JSON.parse(strideOk(['simulate', session, ...sweep.flatMap((c) => ['--config', [...c, ...tlb.map((t) => `tlb=${t}`)].join(';')]), '--json'], env)) as { runs: RunReport[] }
    both.runs.forEach((r, i) => expect(figures(r), sweep[i]!.join(' ')).toEqual(figures(replays[i]!)))
    // Another first level, or no TLB, cannot follow it (the what-if replays).
    expect((await stored(session, ['D1:8192:4:64', 'LL:262144:16:64'], tlb))?.follows).toBe(false)
    expect((await stored(session, ['D1:4096:4:64', 'LL:262144:16:64']))?.follows).toBe(false)
    // A damaged block does not read back: the what-if replays, and stores the same run.
    const damaged = copyWith(session, 'damaged.stride', 'UPDATE first_level_stream SET data = zeroblob(length(data)) WHERE seq = 1')
    expect((await stored(damaged, ['D1:4096:4:64', 'LL:262144:16:64'], tlb))!.blocksRead[0]).toBe(false)
    expect(figures(whatIf(damaged, ['D1:4096:4:64', 'LL:262144:16:64'], ['--tlb', tlb[0]!]))).toEqual(figures(whatIf(copyWith(session, 'replay2.stride', 'DELETE FROM first_level_state'), ['D1:4096:4:64', 'LL:262144:16:64'], ['--tlb', tlb[0]!])))
    // That replay kept a whole first level in its place: the next what-if follows it.
    const mended = await stored(damaged, sweep[1]!, tlb)
    expect(mended?.follows && mended.blocksRead.every(Boolean)).toBe(true)
    expect(figures(whatIf(damaged, sweep[1]!, ['--tlb', tlb[0]!]))).toEqual(figures(replays[1]!))
  })

  it('in Cachegrind-compatible mode, without heap tracking', async () => {
    const session = join(dir, 'mult.stride')
    strideOk(['trace', '--launch', example('mult'), '--no-heap', '--out', session, '--cache', 'D1:8192:2:64', '--cache', 'LL:131072:4:64', '--cachegrind-compatible'], env)
    const caches = ['D1:8192:2:64', 'LL:1048576:16:64']
    const s = await stored(session, caches, [], true)
    expect(s?.follows).toBe(true)
    expect(figures(whatIf(session, caches, ['--cachegrind-compatible']))).toEqual(figures(whatIf(copyWith(session, 'mult-replay.stride', 'DELETE FROM first_level_state'), caches, ['--cachegrind-compatible'])))
  })

  it('a function\'s trace warmed by the rest of the program keeps none; its first (cold) what-if replays and keeps it for the next', async () => {
    const session = join(dir, 'warm.stride')
    strideOk(['trace', '--launch', example('mult'), '--functions', 'do_mult', '--out', session, '--cache', 'D1:8192:2:64', '--cache', 'LL:131072:4:64'], env)
    const caches = ['D1:8192:2:64', 'LL:1048576:16:64']
    expect(await stored(session, caches)).toBeNull()
    const replayed = whatIf(session, caches)
    expect((await stored(session, caches))?.follows).toBe(true)
    expect(figures(whatIf(session, ['D1:8192:2:64', 'LL:2097152:16:64']))).toEqual(figures(whatIf(copyWith(session, 'warm-replay.stride', 'DELETE FROM first_level_state'), ['D1:8192:2:64', 'LL:2097152:16:64'])))
    expect(figures(whatIf(session, caches))).toEqual(figures(replayed))
  })

  it('a session whose first level was declined (its stream outgrew the trace) replays, and no what-if keeps it again', async () => {
    const session = join(dir, 'mult-kept.stride')
    strideOk(['trace', '--launch', example('mult'), '--out', session, '--cache', 'D1:8192:2:64', '--cache', 'LL:131072:4:64'], env)
    const caches = ['D1:8192:2:64', 'LL:1048576:16:64']
    // As FirstLevelStreamWriter leaves a stream past its budget: no blocks, the state row says declined.
    const declined = copyWith(session, 'mult-declined.stride', `DELETE FROM first_level_stream; UPDATE first_level_state SET run = -1, identity = '', header = '{"declined":true}', data = x''`)
    const rows = (file: string) => {
      const db = openDb(file, { readonly: true })
      try {
        return { blocks: db.prepare('SELECT COUNT(*) FROM first_level_stream').pluck().get(), header: db.prepare('SELECT header FROM first_level_state').pluck().get() }
      } finally {
        db.close()
      }
    }
    const isDeclined = (file: string) => {
      const db = openDb(file, { readonly: true })
      try {
        return firstLevelDeclined(db)
      } finally {
        db.close()
      }
    }
    expect(isDeclined(declined)).toBe(true)
    expect(isDeclined(session)).toBe(false)
    const replayed = whatIf(declined, caches)
    expect(rows(declined)).toEqual({ blocks: 0, header: '{"declined":true}' })
    expect(figures(replayed)).toEqual(figures(whatIf(session, caches)))
  })
})

/**
 * The statics cache on real traces: a session from before it (no cache) simulates to the same
 * report as one that has it, and comes out of its first what-if with the cache.
 */
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'
import { openDb } from './open-db'
import { readPointColumns } from './point-columns'
import { readStaticsCache } from './statics-cache'
import { staticsIdentity } from './statics-identity'
import { readTouches } from './touches'

const home = tempDir('statics-cache')
const env = fixedEnv(home)

/** The report without what differs between two runs of one simulation: its id. */
const comparable = (r: RunReport) => ({ ...r, run: 0 })

describe('statics cache', () => {
  it('an older session (no cache) simulates as one with it, and comes out of its first what-if with it', () => {
    const session = join(home, 'objects.stride')
    strideOk(['trace', '--launch', example('objects_shares'), '--out', session], env)
    const old = join(home, 'objects-older.stride')
    copyFileSync(session, old)
    const db = openDb(old)
    db.exec('DROP TABLE statics_cache')
    db.close()

    const simulate = (path: string) => JSON.parse(strideOk(['simulate', path, '--cache', 'L1:16K:4:64', '--json'], env)) as RunReport
    const withCache = simulate(session)
    const before = simulate(old)
    expect(comparable(before)).toEqual(comparable(withCache))
    expect(withCache.lines.length).toBeGreaterThan(0)

    const upgraded = openDb(old, { readonly: true })
    const cache = readStaticsCache(upgraded, staticsIdentity(upgraded)!)
    expect(cache?.columns()).toEqual(readPointColumns(upgraded))
    expect(cache?.touches()).toEqual(readTouches(upgraded))
    upgraded.close()
    // And from its cache now, the same again.
    expect(comparable(simulate(old))).toEqual(comparable(withCache))
  })
})

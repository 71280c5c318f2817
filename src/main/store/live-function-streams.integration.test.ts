/**
 * The functions' stream statistics kept while Stride's Valgrind tool traces a real program
 * (live-function-streams.ts) against the post-run computation over the stored trace: the same
 * rows, byte for byte, in the same order; whole programs (libc's and ld.so's points, whose
 * symbols are read while the program runs), several chunks, the heap preload, and a trace cut
 * short by a limit.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, example, fixedEnv, stride, tempDir } from '../testing/cli-runner'
import { openDb } from './open-db'
import { allRows } from './rows'
import { computeFunctionStreams } from './stream-store'

const dir = tempDir('live-streams')
const env = fixedEnv(dir)

function heat(): string {
  const out = join(dir, 'heat')
  const r = spawnSync('cc', ['-O2', '-g', '-o', out, join(ROOT, 'bench', 'targets', 'heat.c')], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return out
}

/** Traces, then returns the stored rows, the post-run ones, and how many chunks and functions. */
async function traceAndCompare(name: string, args: string[]) {
  const session = join(dir, `${name}.stride`)
  const r = stride(['trace', ...args.slice(0, 2), '--out', session, '--force', ...args.slice(2)], env)
  expect(r.status, r.stderr).toBe(0)
  const db = openDb(session, { readonly: true })
  try {
    const stored = allRows(db.prepare('SELECT stats FROM function_streams ORDER BY rowid'), { stats: 'text' }).map((row) => row.stats)
    const pointFunction = allRows(db.prepare('SELECT function FROM points ORDER BY idx'), { function: 'text?' }).map((p) => p.function)
    const computed = (await computeFunctionStreams(db, pointFunction)).map((f) => JSON.stringify(f))
    const chunks = (db.prepare('SELECT COUNT(*) AS n FROM trace_chunks').get() as { n: number }).n
    const meta = new Map(allRows(db.prepare('SELECT key, value FROM meta'), { key: 'text', value: 'text' }).map((m) => [m.key, JSON.parse(m.value) as unknown]))
    // The live statistics were used: the fallback says why in the session's meta.
    expect(meta.get('functionStreamsAfterTrace')).toBeUndefined()
    return { stored, computed, chunks, partial: meta.get('partial') }
  } finally {
    db.close()
  }
}

describe("the functions' stream statistics kept while the trace runs", () => {
  const program = heat()

  it('equal the post-run computation on a whole-program stencil over several chunks', async () => {
    const got = await traceAndCompare('heat', ['--launch', program, '--no-heap', '--', '192', '6'])
    expect(got.chunks).toBeGreaterThan(3)
    expect(got.stored.length).toBeGreaterThan(2) // main, libc's and ld.so's functions, (unknown) perhaps
    expect(got.stored).toEqual(got.computed)
  })

  it('equal it with the heap preload (its library\'s points too), and on a trace stopped at a limit (partial)', async () => {
    const whole = await traceAndCompare('conflict', ['--launch', example('conflict')])
    expect(whole.stored).toEqual(whole.computed)
    const cut = await traceAndCompare('heat-cut', ['--launch', program, '--max-events', '600000', '--stop-at-limit', '--', '192', '6'])
    expect(cut.partial).toBe(true)
    expect(cut.chunks).toBeGreaterThan(1)
    expect(cut.stored).toEqual(cut.computed)
  })
})

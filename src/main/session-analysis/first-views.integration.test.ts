/**
 * What a session shows on opening is stored with its trace (first-views.ts): `stride advise`
 * and `stride objects --method exact` answer from it, and what they answer is what they derive
 * from the session's tables (the views removed) — for a C program's function, a C++ program of
 * heap-heavy containers whole, and four threads sharing lines (the advisor's sharing pass).
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('first-views')
const env = fixedEnv(dir)
const CACHE = ['--cache', 'L1:4K:2:64', '--cache', 'L2:64K:4:64']
const ROOT = join(__dirname, '..', '..', '..')

function compile(compiler: string, out: string, source: string, extra: string[] = []): string {
  const path = join(dir, out)
  const r = spawnSync(compiler, ['-g', '-O1', '-o', path, source, ...extra], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${compiler} ${source}: ${r.stderr}`)
  return path
}

const programs = [
  { name: 'objects_shares', program: () => example('objects_shares'), functions: 'sweep' },
  { name: 'cxx-containers', program: () => compile('g++', 'cxx-containers', join(ROOT, 'src', 'main', 'correlate', 'fixtures', 'outside', 'cxx-containers.cpp')), functions: null },
  { name: 'threads', program: () => compile('gcc', 'threads', join(ROOT, 'bench', 'targets', 'threads.c'), ['-pthread']), functions: 'sweep' }
]

/** The session's stored views, by "view key". */
function storedViews(session: string): Map<string, unknown> {
  const db = new Database(session, { readonly: true })
  try {
    const rows = db.prepare('SELECT view, key, body FROM view_cache WHERE run = 1').all() as Array<{ view: string; key: string; body: string }>
    return new Map(rows.map((r) => [`${r.view} ${r.key}`, JSON.parse(r.body) as unknown]))
  } finally {
    db.close()
  }
}

/** objects --json without its measured cost (seconds differ run to run). */
function objectsOf(session: string): unknown {
  const o = JSON.parse(strideOk(['objects', session, '--method', 'exact', '--json'], env)) as { cost?: unknown; objects: unknown[] }
  expect(o.objects.length).toBeGreaterThan(0)
  delete o.cost
  return o
}

describe('views stored with the trace', () => {
  for (const p of programs)
    it(`${p.name}: advise and objects answer what the session's tables give`, () => {
      const session = join(dir, `${p.name}.stride`)
      strideOk(['trace', ...(p.functions ? ['--functions', p.functions] : []), '--out', session, ...CACHE, '--launch', p.program()], env)
      const views = storedViews(session)
      expect([...views.keys()].sort()).toEqual(['advice L1', 'objects-exact L1'])
      const advice = JSON.parse(strideOk(['advise', session, '--json'], env)) as { items: unknown[] }
      expect(advice).toEqual(views.get('advice L1'))
      if (p.name === 'threads') expect(JSON.stringify(advice.items)).toMatch(/sharing/i)
      const objects = objectsOf(session)

      // The same session without its views: everything derived from the tables, as before.
      const bare = join(dir, `${p.name}-bare.stride`)
      copyFileSync(session, bare)
      const db = new Database(bare)
      db.exec('DELETE FROM view_cache')
      db.close()
      expect(JSON.parse(strideOk(['advise', bare, '--json'], env))).toEqual(advice)
      expect(objectsOf(bare)).toEqual(JSON.parse(JSON.stringify(objects).replaceAll(session, bare)))
    })

  it('advise reads the stored diagnosis instead of deriving one', () => {
    const session = join(dir, 'objects_shares.stride')
    // Rewritten as the trace would have written it (its identity's check recomputed): what
    // advise prints is then the stored text, which no derivation gives.
    const db = new Database(session)
    const row = db.prepare("SELECT identity, body FROM view_cache WHERE view = 'advice'").get() as { identity: string; body: string }
    const body = JSON.stringify({ ...(JSON.parse(row.body) as object), items: [] })
    db.prepare("UPDATE view_cache SET body = ?, identity = ? WHERE view = 'advice'").run(body, `${row.identity.slice(0, row.identity.lastIndexOf('#'))}#${crc32(body).toString(16)}`)
    db.close()
    expect(strideOk(['advise', session], env)).toMatch(/nothing to advise/)
  })
})

/**
 * Issue 48: a reference is named the same in every session of one build that saw it, whatever
 * else the trace saw (whole program, one function, cut short), and Compare matches it so.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('refnames')
const env = fixedEnv(dir)

interface Point {
  id: string
  pc: string
  kind: string
  function: string | null
  line: number | null
  accesses: number
}

function trace(name: string, ...args: string[]): string {
  const session = join(dir, `${name}.stride`)
  strideOk(['trace', '--launch', example('conflict'), ...args, '--out', session], env)
  return session
}
const points = (session: string) => (JSON.parse(strideOk(['info', session, '--json'], env)) as { points: Point[] }).points
/** The instruction (under Valgrind a program loads at one address every run) -> its name. */
const byInstruction = (ps: Point[]) => new Map(ps.map((p) => [`${p.pc}/${p.kind}`, p.id]))

describe('reference names across sessions of one build', () => {
  let scoped = ''
  let whole = ''
  let cut = ''
  beforeAll(() => {
    scoped = trace('scoped', '--functions', 'sumfunc')
    whole = trace('whole')
    cut = trace('cut', '--max-events', '20000')
  })

  it('names the points two traces share alike: one function against the whole program, and a cut trace', () => {
    const s = byInstruction(points(scoped))
    const w = byInstruction(points(whole))
    const c = byInstruction(points(cut))
    expect(s.size).toBeGreaterThanOrEqual(4)
    expect(w.size).toBeGreaterThan(1000)
    for (const [at, id] of s) expect(w.get(at), at).toBe(id)
    let shared = 0
    for (const [at, id] of c) {
      if (!w.has(at)) continue
      shared++
      expect(w.get(at), at).toBe(id)
    }
    expect(shared).toBeGreaterThan(100)
    // The paper's three reads of line 30 (METRIC 10.3), by data structure, kind, line and place.
    expect([...s.values()].filter((id) => /_Read_30@sumfunc\+0x[0-9a-f]+$/.test(id)).map((id) => id.split('_')[0]).sort()).toEqual(['A', 'B', 'C'])
  })

  it('Compare (report --against) matches the function-scoped session with the whole program by reference', () => {
    for (const s of [scoped, whole]) strideOk(['simulate', s, '--cache', 'L1:128K:2:128', '--json'], env)
    const diff = JSON.parse(strideOk(['report', scoped, '--run', '1', '--against', `${whole}:1`, '--json'], env)) as {
      references: Array<{ key: string; levels: Record<string, { before: number; after: number }> }>
    }
    const line30 = diff.references.filter((r) => /_Read_30@sumfunc\+/.test(r.key))
    expect(line30).toHaveLength(3)
    // Each read misses on (nearly) all of its 8,192 accesses in both sessions: one row each, with both.
    for (const r of line30) {
      expect(r.levels.L1!.before).toBeGreaterThan(8100)
      expect(r.levels.L1!.after).toBe(8192)
    }
  })
})

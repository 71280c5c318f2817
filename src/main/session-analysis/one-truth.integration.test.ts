/**
 * One truth per data structure, on real recorded sessions: `report --by variable`, slice
 * queries, Compare (`report --against`) and `objects --method exact` give every data structure
 * the same misses, for the first run and a what-if; and two traces of a deterministic program
 * (whole program, C and C++ with heap-heavy standard containers) give equal reports.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('one-truth')
const env = fixedEnv(dir)
const CACHE = ['--cache', 'L1:4K:2:64', '--cache', 'L2:64K:4:64']
const WHAT_IF = ['--cache', 'L1:2K:2:64', '--cache', 'L2:64K:4:64']
const LEVELS = ['L1', 'L2']

function compile(compiler: string, out: string, source: string): string {
  const path = join(dir, out)
  const r = spawnSync(compiler, ['-g', '-O2', '-fPIE', '-pie', '-o', path, source], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${compiler} ${source}: ${r.stderr}`)
  return path
}

const programs = [
  { name: 'reuse', program: example('reuse'), functions: null },
  { name: 'objects_shares', program: example('objects_shares'), functions: 'sweep' },
  { name: 'cxx-containers', program: compile('g++', 'cxx-containers', join(__dirname, '..', 'correlate', 'fixtures', 'outside', 'cxx-containers.cpp')), functions: null }
]

const json = (args: string[]) => JSON.parse(strideOk([...args, '--json'], env)) as Record<string, unknown>
const key = (name: string) => (name === '(unknown)' ? 'unknown' : name)

function trace(p: (typeof programs)[number], out: string): string {
  strideOk(['trace', ...(p.functions ? ['--functions', p.functions] : []), '--out', out, ...CACHE, '--launch', p.program], env)
  return out
}

/** Misses per "structure @level", as each view gives them; zeros left out. */
function byReport(s: string, run: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const v of json(['report', s, '--run', String(run), '--by', 'variable', '--all']).variables as Array<{ variable: string; levels: Record<string, { misses: number }> }>)
    for (const [l, x] of Object.entries(v.levels)) if (x.misses > 0) out.set(`${key(v.variable)} @${l}`, x.misses)
  return out
}
function byObjects(s: string, run: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const l of LEVELS)
    for (const o of json(['objects', s, '--run', String(run), '--level', l, '--method', 'exact']).objects as Array<{ name: string; misses: number }>) if (o.misses > 0) out.set(`${key(o.name)} @${l}`, o.misses)
  return out
}
function byQuery(s: string, run: number): Map<string, number> {
  const q = json(['query', s, `[{*},{*},{${LEVELS.map((l) => `${l}.misses`).join(',')}}]`, '--run', String(run)]) as { data: string[]; byData: number[][] }
  const out = new Map<string, number>()
  q.data.forEach((name, i) => LEVELS.forEach((l, k) => (q.byData[i]![k]! > 0 ? out.set(`${key(name)} @${l}`, q.byData[i]![k]!) : undefined)))
  return out
}
function byCompare(s: string, before: number, after: number): [Map<string, number>, Map<string, number>] {
  const d = json(['report', s, '--run', String(after), '--against', String(before), '--all']) as { variables: Array<{ key: string; levels: Record<string, { before: number; after: number }> }> }
  const b = new Map<string, number>()
  const a = new Map<string, number>()
  for (const v of d.variables)
    for (const [l, x] of Object.entries(v.levels)) {
      if (x.before > 0) b.set(`${key(v.key)} @${l}`, x.before)
      if (x.after > 0) a.set(`${key(v.key)} @${l}`, x.after)
    }
  return [b, a]
}
const sorted = (m: Map<string, number>) => [...m].sort((x, y) => (x[0] < y[0] ? -1 : 1))
const report = (s: string, by: string, run = 1) => strideOk(['report', s, '--run', String(run), '--by', by, '--all', '--json'], env).replace(/"createdAt": "[^"]*"/g, '').replace(/"run": \d+/, '')

describe('one truth per data structure', () => {
  for (const p of programs) {
    it(`${p.name}${p.functions ? ` (${p.functions})` : ' (whole program)'}: every view's misses per data structure are the exact ranking's, and two traces report the same`, () => {
      const [s, again] = [trace(p, join(dir, `${p.name}-0.stride`)), trace(p, join(dir, `${p.name}-1.stride`))]
      strideOk(['simulate', s, ...WHAT_IF], env) // run 2
      strideOk(['simulate', s, ...CACHE], env) // run 3: run 1's hierarchy again
      // A function's trace: run 1 is warmed by the whole program, what-ifs replay the function's
      // accesses alone (cold): the same simulation twice is runs 3 and 4.
      const [once, twice] = p.functions ? [3, 4] : [1, 3]
      if (p.functions) strideOk(['simulate', s, ...CACHE], env) // run 4
      const exact = byObjects(s, 1)
      const whatIf = byObjects(s, 2)
      expect(exact.size).toBeGreaterThan(2)
      // A what-if that changes misses: the comparison below is not of one run with itself.
      expect(sorted(whatIf)).not.toEqual(sorted(exact))
      const [before, after] = byCompare(s, 1, 2)
      expect(sorted(byReport(s, 1))).toEqual(sorted(exact))
      expect(sorted(byQuery(s, 1))).toEqual(sorted(exact))
      expect(sorted(before)).toEqual(sorted(exact))
      expect(sorted(byReport(s, 2))).toEqual(sorted(whatIf))
      expect(sorted(byQuery(s, 2))).toEqual(sorted(whatIf))
      expect(sorted(after)).toEqual(sorted(whatIf))
      for (const by of ['reference', 'variable', 'line']) {
        // Two traces of the program, and the same trace simulated twice.
        expect(report(again, by)).toBe(report(s, by))
        expect(report(s, by, twice)).toBe(report(s, by, once))
      }
      expect(sorted(byObjects(again, 1))).toEqual(sorted(exact))
    })
  }
})

/**
 * The advisor on the bundled METRIC examples, traced and simulated through the built CLI with
 * the papers' caches: it must reach the papers' diagnoses (10.3 conflict → pad, 10.2 column
 * walk → interchange/prefetch, 10.1 irregular gathers → hints), and its one-click what-ifs
 * must really remove the misses when run.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RunAdvice } from '../../../shared/domain'
import { example, fixedEnv, stride, strideOk, tempDir } from '../../testing/cli-runner'

const home = tempDir('advice')
const env = fixedEnv(home)

function traced(name: string, functions: string, ...extra: string[]): string {
  const session = join(home, `${name}.stride`)
  strideOk(['trace', '--launch', example(name), '--functions', functions, ...extra, '--out', session], env)
  return session
}
const advise = (session: string, ...args: string[]) => JSON.parse(strideOk(['advise', session, '--json', ...args], env)) as RunAdvice
const l1Misses = (out: string) => {
  const levels = (JSON.parse(out) as { levels: Array<{ readMisses: number; writeMisses: number }> }).levels
  return levels[0]!.readMisses + levels[0]!.writeMisses
}

describe('advisor on the METRIC examples', () => {
  let conflict: string
  let mult: string
  let reuse: string
  beforeAll(() => {
    conflict = traced('conflict', 'sumfunc')
    mult = traced('mult', 'do_mult', '--max-events', '400000')
    reuse = traced('reuse', 'do_sum,do_mult')
    strideOk(['simulate', conflict, '--cache', 'L1:128K:2:128'], env)
    strideOk(['simulate', mult, '--cache', 'L1:32K:2:128'], env)
    strideOk(['simulate', reuse, '--cache', 'L2:256K:8:128'], env)
  })

  it('10.3: the A↔B↔C cycle is a conflict, and its padding cuts the misses to one per line', () => {
    const advice = advise(conflict)
    const [item] = advice.items
    expect(item!.diagnosis).toBe('conflict')
    expect(item!.variables.sort()).toEqual(['A', 'B', 'C'])
    expect(item!.evidence).toContain('all regular, all stride 8')
    expect(item!.action?.kind).toBe('layout')
    const pads = item!.action!.kind === 'layout' ? item!.action!.layout : []
    expect(pads.map((p) => (p.kind === 'external' ? p.bytes : 0))).toEqual([1024, 1024])
    const padded = strideOk(['simulate', conflict, '--cache', 'L1:128K:2:128', '--no-baseline', ...pads.flatMap((p) => ['--pad', `${p.variable}=${p.kind === 'external' ? p.bytes : 0}`]), '--json'], env)
    // METRIC 10.3.2: 512 misses per array (1 in 16) instead of 8192.
    expect(l1Misses(padded)).toBeLessThan(3 * 520)
  })

  it('10.2: the column walk is a large stride (8000 bytes) → loop interchange or a stride prefetcher', () => {
    const b = advise(mult).items.find((i) => i.variables.includes('B'))!
    expect(b.diagnosis).toBe('large-stride')
    expect(b.evidence[0]).toMatch(/single stride 8000/)
    expect(b.suggestion).toMatch(/interchange the loops/i)
    expect(b.action).toMatchObject({ kind: 'levels', levels: [{ prefetch: 'stride' }] })
    // The column does not fit in 32 KiB: capacity misses, so no cycle of mult is called a conflict.
    expect(advise(mult).items.some((i) => i.diagnosis === 'conflict')).toBe(false)
    const before = advise(mult).totalMisses
    const withPrefetch = strideOk(['simulate', mult, '--cache', 'L1:32K:2:128:lru:pf=stride', '--json'], env)
    expect(l1Misses(withPrefetch)).toBeLessThan(before / 10)
  })

  it('10.1: the indirect C and D reads are indexed gathers and pollute L2; no padding is offered', () => {
    const advice = advise(reuse)
    const kinds = advice.items.map((i) => `${i.diagnosis}:${i.variables.join()}`)
    expect(kinds).toContain('gather:C')
    expect(kinds).toContain('gather:D')
    expect(kinds.some((k) => k.startsWith('pollution:'))).toBe(true)
    expect(advice.items.some((i) => i.diagnosis === 'conflict')).toBe(false)
  })

  it('names the levels it has when asked for another', () => {
    const r = stride(['advise', conflict, '--run', '1', '--level', 'L3'], env)
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe('stride advise: "L3" is not a cache level of run 1; pick one of L1.')
  })
})

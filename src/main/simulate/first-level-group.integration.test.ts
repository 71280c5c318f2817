/**
 * A sweep of lower levels under one first level (first-level-group.ts) stores, for each
 * hierarchy, the run that simulating it alone stores: every figure of its report (levels,
 * lines, references, data structures, timelines), on a real trace with its heap tracked (runs
 * per data structure) and a data TLB.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('first-level')
const env = fixedEnv(dir)

/** A report without its run id (the only figure two stores of one run differ in). */
const figures = ({ run: _run, ...rest }: RunReport) => rest

describe('a sweep sharing its first level', () => {
  it('stores each hierarchy exactly as a simulation of it alone does', () => {
    const session = join(dir, 'randidx.stride')
    strideOk(['trace', '--launch', example('randidx'), '--out', session], env)
    const tlb = 'DTLB:16:4:4K'
    const lower = ['LL:64K:8:64', 'LL:256K:16:128', 'L2:16K:4:64;L3:512K:8:64']
    const sweep = JSON.parse(strideOk(['simulate', session, ...lower.flatMap((l) => ['--config', `D1:4K:4:64;${l};tlb=${tlb}`]), '--jobs', '1', '--json'], env)) as { runs: RunReport[] }
    expect(sweep.runs).toHaveLength(lower.length)
    lower.forEach((l, i) => {
      const alone = JSON.parse(strideOk(['simulate', session, '--cache', 'D1:4K:4:64', ...l.split(';').flatMap((c) => ['--cache', c]), '--tlb', tlb, '--json'], env)) as RunReport
      expect(alone.levels.map((x) => x.name)).toEqual(['D1', ...l.split(';').map((c) => c.split(':')[0]), 'DTLB'])
      expect(figures(sweep.runs[i]!), l).toEqual(figures(alone))
    })
    // The first level's misses are each lower level's reads and writes (the stream is whole).
    const d1 = sweep.runs[0]!.levels[0]!
    expect(sweep.runs[0]!.levels[1]!.reads + sweep.runs[0]!.levels[1]!.writes).toBe(d1.readMisses + d1.writeMisses)
  })
})

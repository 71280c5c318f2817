/**
 * Runs told apart: `stride info` lists each run with its label (what differs from the first
 * run), and `stride runs --run N --rename` gives one a label of the user's that stays.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { example, fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('run-labels')
const env = fixedEnv(dir)
const session = join(dir, 'conflict.stride')

describe('run labels in the CLI', () => {
  beforeAll(() => {
    strideOk(['trace', '--functions', 'sumfunc', '--cache', 'L1:32K:8:64', '--out', session, '--launch', example('conflict')], env)
    strideOk(['simulate', session, '--cache', 'L1:32K:8:64:lru:pf=stride'], env)
    // A layout filter: the padded run (3), then its unpadded baseline (4).
    strideOk(['simulate', session, '--cache', 'L1:32K:8:64', '--pad', 'B=64'], env)
    strideOk(['simulate', session, '--cache', 'L1:64K:8:64'], env)
  }, 120_000)

  it('stride info gives each run a line with its label', () => {
    const lines = strideOk(['info', session], env).split('\n')
    const runs = lines.slice(lines.findIndex((l) => l.startsWith('  runs ')))
    expect(runs.slice(0, 5)).toEqual([
      // A function's trace: run 1 warmed by the whole program, what-ifs replay the function alone.
      '  runs      run 1  L1 32K 8-way 64B (warmed by the whole program)',
      '            run 2  + stride prefetcher on L1 (cold, function-only)',
      '            run 3  pad B by 64B (cold, function-only)',
      '            run 4  L1 32K 8-way 64B (same hierarchy as run 1) (cold, function-only)',
      '            run 5  L1 64K (was 32K) (cold, function-only)'
    ])
  })

  it('stride runs renames a run, keeps the name, and goes back to the derived label', () => {
    expect(strideOk(['runs', session, '--run', '2', '--rename', 'stride pf try'], env).trim()).toBe('run 2  stride pf try (cold, function-only)')
    expect(strideOk(['info', session], env)).toContain('            run 2  stride pf try (cold, function-only)\n')
    expect(strideOk(['runs', session], env).split('\n')[1]).toBe('run 2  stride pf try (cold, function-only)')
    const json = JSON.parse(strideOk(['runs', session, '--run', '2', '--json'], env)) as { runs: Array<{ run: number; name: string | null; label: string }> }
    expect(json.runs).toMatchObject([{ run: 2, name: 'stride pf try', label: 'stride pf try' }])
    expect(strideOk(['runs', session, '--run', '2', '--rename', ''], env).trim()).toBe('run 2  + stride prefetcher on L1 (cold, function-only)')
    const bad = stride(['runs', session, '--rename', 'x'], env)
    expect(bad.status).toBe(2)
    expect(bad.stderr.trim()).toMatch(/^stride runs: --rename names one run: give it with --run N/)
  })
})

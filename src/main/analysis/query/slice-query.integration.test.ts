/**
 * Query slices on the bundled `conflict` example through the built CLI: the SIGMA query
 * [{A,B},{sumfunc},{misses}] returns the simulator's numbers (as `stride report` gives them),
 * and array sections re-simulated from the trace add up to the whole arrays.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { QuerySlice } from '../../../shared/domain'
import { example, fixedEnv, stride, strideOk, tempDir } from '../../testing/cli-runner'

const dir = tempDir('query')
const env = fixedEnv(dir)
const session = join(dir, 'conflict.stride')

interface RefJson { variable: string | null; function?: string | null; reads: number; writes: number; levels: Record<string, { misses: number }> }

beforeAll(() => {
  strideOk(['trace', '--launch', example('conflict'), '--functions', 'sumfunc', '--out', session], env)
  strideOk(['simulate', session, '--cache', 'L1:128K:2:128'], env)
})

const query = (q: string, ...extra: string[]) => JSON.parse(strideOk(['query', session, q, '--json', ...extra], env)) as QuerySlice

describe('stride query', () => {
  it('[{A,B},{sumfunc},{misses}] gives the simulator per-variable misses in sumfunc', () => {
    const refs = (JSON.parse(strideOk(['report', session, '--by', 'reference', '--json'], env)) as { references: RefJson[] }).references
    const vars = (JSON.parse(strideOk(['report', session, '--by', 'variable', '--json'], env)) as { variables: Array<{ variable: string; levels: Record<string, { misses: number }> }> }).variables
    const slice = query('[{A,B},{sumfunc},{misses}]')
    expect(slice.data).toEqual(['A', 'B'])
    expect(slice.code).toEqual(['sumfunc'])
    for (const [i, name] of ['A', 'B'].entries()) {
      const expected = refs.filter((r) => r.variable === name).reduce((a, r) => a + r.levels.L1!.misses, 0)
      expect(expected).toBe(8192) // every read of the conflict kernel misses (METRIC 10.3)
      expect(slice.cells[i]![0]![0]).toBe(expected)
      expect(slice.cells[i]![0]![0]).toBe(vars.find((v) => v.variable === name)!.levels.L1!.misses)
    }
    expect(slice.total).toEqual([16384])
  })

  it('answers array sections exactly: the halves of A add up to A', () => {
    const slice = query('[{A[0:4095],A[4096:8191],A},{sumfunc},{loads,misses}]')
    expect(slice.resimulated).toBe(true)
    const [lo, hi, whole] = slice.cells.map((row) => row[0]!)
    expect(lo).toEqual([4096, 4096])
    expect(hi).toEqual([4096, 4096])
    expect(whole).toEqual([8192, 8192])
  })

  it('refuses bad notation with the column, and unknown levels with the run levels', () => {
    const bad = stride(['query', session, '[{A,B},{sumfunc},{mises}]'], env)
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/unknown metric "mises".*column 19/)
    const level = stride(['query', session, '[{A},{sumfunc},{L2.misses}]'], env)
    expect(level.stderr).toMatch(/no level "L2"; its levels are L1/)
  })

  it('refuses names the run does not have: a non-zero exit naming each, not zeros', () => {
    const fn = stride(['query', session, '[{A},{sumfnc},{misses}]'], env)
    expect(fn.status).toBe(2)
    expect(fn.stdout).toBe('')
    expect(fn.stderr.trim()).toBe('stride query: Query: no traced function "sumfnc"; did you mean sumfunc?')
    const data = stride(['query', session, '[{Q},{sumfunc},{misses}]'], env)
    expect(data.status).toBe(2)
    expect(data.stderr).toMatch(/no data structure "Q" in this run; its data structures are A, B, C/)
    const file = stride(['query', session, '[{A},{mult.c},{misses}]'], env)
    expect(file.status).toBe(2)
    expect(file.stderr).toMatch(/no source file "mult.c" \(in mult.c\) among the traced references; did you mean conflict.c\?|its files are conflict.c/)
  })
})

describe('querySlice through the service', () => {
  it('reports progress while array sections re-simulate, and stops when the call is aborted', async () => {
    const { createStrideService } = await import('../../services/stride-service')
    const mult = join(dir, 'mult.stride')
    strideOk(['trace', '--launch', example('mult'), '--max-events', '3000000', '--out', mult], env)
    strideOk(['simulate', mult, '--cache', 'L1:32K:8:64'], env)
    const service = createStrideService()
    try {
      // Whole run: B[*,*] is all of B.
      const done = (await service.call('querySlice', { session: mult, query: '[{B[*,*],B},{do_mult},{loads,misses}]' })) as QuerySlice
      expect(done.cells[0]![0]).toEqual(done.cells[1]![0])
      expect(done.cells[1]![0]![1]).toBeGreaterThan(300_000)

      const progress: number[] = []
      const controller = new AbortController()
      const context = {
        client: 'test',
        signal: controller.signal,
        progress: (p: { events: number }) => {
          progress.push(p.events)
          if (progress.length === 1) controller.abort()
        }
      }
      await expect(service.call('querySlice', { session: mult, query: '[{A[*,1]},{*},{misses}]' }, context)).rejects.toThrow('Query cancelled.')
      expect(progress.length).toBeGreaterThan(0)
      expect(progress[0]!).toBeLessThan(3_000_000)
    } finally {
      await service.dispose()
    }
  })
})

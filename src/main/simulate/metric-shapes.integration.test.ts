/** METRIC section 10.3: conflict misses in sumfunc, and what padding does to them. */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunReport } from '../../shared/domain'
import { example, fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('metric')
const env = fixedEnv(dir)

function sumfuncReads(name: string): { reads: number; misses: number; report: RunReport } {
  const session = join(dir, `${name}.stride`)
  strideOk(['trace', '--launch', example(name), '--functions', 'sumfunc', '--out', session], env)
  const report = JSON.parse(strideOk(['simulate', session, '--cache', 'L1:128K:2:128', '--json'], env)) as RunReport
  const line30 = report.references.filter((r) => r.line === 30 && r.kind === 'read')
  return {
    reads: line30.reduce((s, r) => s + r.reads, 0),
    misses: line30.reduce((s, r) => s + (r.levels.L1?.readMisses ?? 0), 0),
    report
  }
}

describe('METRIC 10.3 (sumfunc, L1 128K / 2-way / 128-byte lines, LRU)', () => {
  it('the three reads conflict and miss on at least 99.9% of accesses', () => {
    const { reads, misses, report } = sumfuncReads('conflict')
    expect(reads).toBe(3 * 8192)
    expect(misses / reads).toBeGreaterThanOrEqual(0.999)
    expect(report.references.filter((r) => r.line === 30).map((r) => r.id).sort()).toEqual(['A_Read_0', 'B_Read_1', 'C_Read_2'])
  })

  it('with 1 KiB of padding after each array about 1 read in 16 misses', () => {
    const { reads, misses } = sumfuncReads('conflict_padded')
    expect(reads).toBe(3 * 8192)
    expect(Math.abs(misses / reads - 1 / 16)).toBeLessThan(0.002)
  })
})

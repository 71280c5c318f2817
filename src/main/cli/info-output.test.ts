/** `stride info`'s runs and functions: whole sessions' worth, told in a few lines. */
import { describe, expect, it } from 'vitest'
import type { HierarchyConfig, RunSummary } from '../../shared/domain'
import type { FunctionStreams } from '../store/stream-store'
import { RUNS_SHOWN, runLines, shownFunctions } from './info-output'

const l1 = (size: number): HierarchyConfig => ({ levels: [{ name: 'L1', size, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false })
const run = (id: number, config: HierarchyConfig, label: string): RunSummary => ({ run: id, createdAt: 'x', config, accesses: 1, parent: null, name: null, label })

describe('stride info: runs', () => {
  it('writes one line per run, with its label', () => {
    const runs = [run(1, l1(32768), 'L1 32K 8-way 64B'), run(2, l1(32768), '+ stride prefetcher on L1'), run(3, l1(65536), 'L1 64K (was 32K)')]
    expect(runLines(runs)).toEqual(['run 1  L1 32K 8-way 64B', 'run 2  + stride prefetcher on L1', 'run 3  L1 64K (was 32K)'])
    expect(runLines([])).toEqual(['(none)'])
  })

  it('lists the latest runs and counts the earlier ones', () => {
    const runs = Array.from({ length: 40 }, (_, i) => run(i + 1, l1(32768), `label ${i + 1}`))
    const lines = runLines(runs)
    expect(lines).toHaveLength(RUNS_SHOWN + 1)
    expect(lines[0]).toBe(`${40 - RUNS_SHOWN} earlier (stride runs lists them)`)
    expect(lines.at(-1)).toBe('run 40  label 40')
  })
})

describe('stride info: functions', () => {
  const f = (name: string) => ({ function: name }) as FunctionStreams

  it('keeps the functions holding 0.1% of the accesses, most first, and counts the others', () => {
    const accesses = new Map([['kernel', 2_000_000], ['main', 5_000], ['memset', 1_999], ['_dl_relocate_object', 1_000], ['strlen', 3]])
    const { shown, hidden } = shownFunctions([f('_dl_relocate_object'), f('kernel'), f('main'), f('memset'), f('strlen'), f('nowhere')], accesses)
    // 0.1% of 2,007,002 accesses is 2,007: memset's 1,999 is just under.
    expect(shown.map((s) => s.function)).toEqual(['kernel', 'main'])
    expect(hidden).toBe(4)
  })
})

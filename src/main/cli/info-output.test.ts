/** `stride info`'s runs and functions: whole sessions' worth, told in a few lines. */
import { describe, expect, it } from 'vitest'
import type { HierarchyConfig, RunSummary } from '../../shared/domain'
import type { FunctionStreams } from '../store/stream-store'
import { RUN_GROUPS_SHOWN, runsLine, shownFunctions } from './info-output'

const l1 = (size: number): HierarchyConfig => ({ levels: [{ name: 'L1', size, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false })
const run = (id: number, config: HierarchyConfig): RunSummary => ({ run: id, createdAt: 'x', config, accesses: 1 })

describe('stride info: runs', () => {
  it('writes consecutive runs of one configuration as a range, and tells a layout or TLB apart', () => {
    const padded: HierarchyConfig = { ...l1(32768), layout: [{ kind: 'external', variable: 'B', bytes: 64 }] }
    const tlb: HierarchyConfig = { ...l1(32768), tlb: [{ name: 'DTLB', entries: 64, assoc: 4, pageSize: 4096, policy: 'lru' }] }
    const runs = [1, 2, 3].map((i) => run(i, l1(32768))).concat([run(4, l1(65536)), run(5, padded), run(6, l1(32768)), run(8, l1(32768)), run(9, tlb)])
    expect(runsLine(runs)).toBe('1-3: L1:32768:8:64; 4: L1:65536:8:64; 5: L1:32768:8:64 pad B=64; 6: L1:32768:8:64; 8: L1:32768:8:64; 9: L1:32768:8:64 DTLB:64:4:4096')
    expect(runsLine([])).toBe('(none)')
  })

  it('lists the latest groups and counts the earlier runs', () => {
    // Two configurations in turn: every run is a group of its own.
    const runs = Array.from({ length: 40 }, (_, i) => run(i + 1, l1(i % 2 ? 65536 : 32768)))
    const line = runsLine(runs)
    expect(line.startsWith(`${40 - RUN_GROUPS_SHOWN} earlier (--json lists them); ${40 - RUN_GROUPS_SHOWN + 1}: `)).toBe(true)
    expect(line.split('; ')).toHaveLength(RUN_GROUPS_SHOWN + 1)
    expect(line.endsWith('; 40: L1:65536:8:64')).toBe(true)
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

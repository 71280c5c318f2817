import { describe, expect, it } from 'vitest'
import type { CacheLevelConfig, HierarchyConfig } from './domain'
import { cleanLabel, configChanges, derivedLabel, describeHierarchy, runLabel, type LabelSource } from './run-labels'

const l1 = (over: Partial<CacheLevelConfig> = {}): CacheLevelConfig => ({ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru', ...over })
const hier = (over: Partial<HierarchyConfig> = {}): HierarchyConfig => ({ levels: [l1()], cachegrindCompatible: false, ...over })
const run = (n: number, config: HierarchyConfig, parent: number | null = null, name: string | null = null): LabelSource => ({ run: n, config, parent, name })

describe('run labels', () => {
  it('reads the first run as its whole hierarchy', () => {
    const first = run(1, hier())
    expect(derivedLabel(first, [first])).toBe('L1 32K 8-way 64B')
    expect(describeHierarchy(hier({ levels: [l1(), { name: 'L2', size: 262144, assoc: 16, lineSize: 64, policy: 'plru' }] }))).toBe('L1 32K 8-way 64B, L2 256K 16-way 64B plru')
  })

  it('says what a what-if changed against the run it came from', () => {
    const runs = [run(1, hier()), run(2, hier({ levels: [l1({ prefetch: 'stride' })] }), 1), run(3, hier({ layout: [{ kind: 'external', variable: 'A', bytes: 64 }] }), 1), run(4, hier({ levels: [l1({ size: 65536 })] }), 1)]
    expect(runs.map((r) => derivedLabel(r, runs))).toEqual(['L1 32K 8-way 64B', '+ stride prefetcher on L1', 'pad A by 64B', 'L1 64K (was 32K)'])
  })

  it('derives against the recorded parent, not the first run', () => {
    const runs = [run(1, hier()), run(2, hier({ levels: [l1({ size: 65536 })] }), 1), run(3, hier({ levels: [l1({ size: 65536, assoc: 16 })] }), 2)]
    expect(derivedLabel(runs[2]!, runs)).toBe('L1 16-way (was 8-way)')
  })

  it('falls back to the first run without a parent, or when the parent is gone', () => {
    const runs = [run(1, hier()), run(5, hier({ levels: [l1({ lineSize: 128 })] }), 3)]
    expect(derivedLabel(runs[1]!, runs)).toBe('L1 128B lines (was 64B)')
  })

  it('names policy, write policy, TLB, removed padding and levels', () => {
    const base = hier({ layout: [{ kind: 'external', variable: 'B', bytes: 1024 }], tlb: [{ name: 'DTLB', entries: 64, assoc: 4, pageSize: 4096 }] })
    const now = hier({
      levels: [l1({ policy: 'fifo', writePolicy: 'write-through' }), { name: 'L2', size: 1 << 20, assoc: 16, lineSize: 64, policy: 'lru' }],
      tlb: [{ name: 'DTLB', entries: 128, assoc: 4, pageSize: 4096 }],
      layout: [{ kind: 'internal', variable: 'A', dim: 1, extent: 1001, order: 'row' }]
    })
    expect(configChanges(now, base)).toEqual([
      'L1 fifo (was lru)',
      'L1 write-through (was write-back)',
      '+ L2 1M 16-way 64B',
      'DTLB 128 entries (was 64)',
      'A dimension 1 to 1001',
      'no pad B by 1K'
    ])
    expect(configChanges(base, now)).toContain('- L2')
  })

  it('names loop transforms added and dropped, by file name and line', () => {
    const base = hier({ transforms: [{ kind: 'interchange', file: '/src/mm.c', line: 12 }] })
    const now = hier({ transforms: [{ kind: 'tile', file: '/src/t.c', line: 9, tile: 16 }] })
    expect(configChanges(now, base)).toEqual(['tile loops at t.c:9 by 16', 'no interchange loops at mm.c:12'])
    expect(describeHierarchy(base)).toMatch(/, interchange loops at mm\.c:12$/)
  })

  it('says a run simulates the same as its base', () => {
    const runs = [run(1, hier()), run(2, hier(), 1)]
    expect(derivedLabel(runs[1]!, runs)).toBe('L1 32K 8-way 64B (same hierarchy as run 1)')
  })

  it("shows the user's label instead, and cleans what was typed", () => {
    const runs = [run(1, hier()), run(2, hier({ levels: [l1({ prefetch: 'next-line' })] }), 1, 'nl prefetch try')]
    expect(runLabel(runs[1]!, runs)).toBe('nl prefetch try')
    expect(cleanLabel('  two\nlines  ')).toBe('two lines')
    expect(cleanLabel('   ')).toBeNull()
  })
})

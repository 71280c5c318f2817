import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cacheFlags, decodeAmdCpuid, hostHierarchyOf, parseSysfsCaches, tweakSets } from '../simulate/host-caches'
import { readHostHierarchy, readSysfsDir } from './host-hierarchy'

const FIXTURES = join(__dirname, 'fixtures', 'sysfs-cache')
const fromFixture = (name: string, arch = 'x64', vendor: string | null = 'GenuineIntel') => readHostHierarchy({ sysfsDir: join(FIXTURES, name), cpuidDevice: null, arch, vendor })
const levels = (h: ReturnType<typeof fromFixture>) => h.config.levels.map((l) => [l.name, l.size, l.assoc, l.lineSize])

describe('the host hierarchy from sysfs', () => {
  it("reads this machine's sysfs: D1 and its L3 as the LL", () => {
    const h = fromFixture('this-vm-amd')
    expect(h.source).toBe('sysfs')
    expect(levels(h)).toEqual([
      ['D1', 32768, 8, 64],
      ['LL', 32 * 2 ** 20, 16, 64]
    ])
    expect(h.summary).toBe('D1 32K 8-way 64B, LL 32M 16-way 64B')
    expect(h.note).toBe('Host: D1 32K 8-way 64B, LL 32M 16-way 64B (read from sysfs, L3 as LL, as Cachegrind).')
    expect(cacheFlags(h.config)).toBe('--cache D1:32K:8:64 --cache LL:32M:16:64')
  })

  it('says on AMD that Cachegrind reads other figures (CPUID legacy leaves) when Stride could read sysfs only', () => {
    const h = fromFixture('this-vm-amd', 'x64', 'AuthenticAMD')
    expect(h.asCachegrind).toBe(false)
    expect(h.note).toBe(
      "Host: D1 32K 8-way 64B, LL 32M 16-way 64B (read from sysfs, L3 as LL); on AMD Cachegrind reads CPUID's legacy cache leaves, which may differ (Stride reads them when it can open /dev/cpu/0/cpuid, as root)."
    )
  })

  it('gives an LL whose sets are not a power of two the sets below and more ways, as Cachegrind (12M 16-way: 24-way)', () => {
    const h = fromFixture('intel-12m-l3')
    expect(levels(h)).toEqual([
      ['D1', 32768, 8, 64],
      ['LL', 12 * 2 ** 20, 24, 64]
    ])
    expect(h.note).toContain('LL 12M 16-way 64B simulated as LL 12M 24-way 64B (power-of-two sets, as Cachegrind)')
  })

  it("keeps Cachegrind's arithmetic where the sets are not whole (5M 48-way: 1706 sets -> 1024 sets of 80 ways)", () => {
    expect(levels(fromFixture('amd-5m-48way'))[1]).toEqual(['LL', 64 * 80 * 1024, 80, 64])
    expect(tweakSets({ size: 335544320, assoc: 1, lineSize: 64 })).toEqual({ size: 268435456, assoc: 1, lineSize: 64 })
  })

  it('takes the L2 as the LL when there is no L3', () => {
    expect(levels(fromFixture('two-levels'))).toEqual([
      ['D1', 32768, 8, 64],
      ['LL', 2 * 2 ** 20, 16, 64]
    ])
    expect(fromFixture('two-levels').note).not.toContain('as LL')
  })

  it("falls back to Cachegrind's defaults, in one line, when sysfs is unreadable or unusable", () => {
    const gone = fromFixture('no-such-host')
    expect(gone.source).toBe('defaults')
    expect(levels(gone)).toEqual([
      ['D1', 65536, 2, 64],
      ['LL', 262144, 8, 64]
    ])
    expect(gone.note).toMatch(/^Host caches unreadable: cannot list .*no-such-host \(ENOENT.*\); using Cachegrind's defaults, D1 64K 2-way 64B, LL 256K 8-way 64B\.$/)
    expect(fromFixture('no-i1').note).toMatch(/^Host caches unusable \(sysfs\): no level-1 instruction cache is listed/)
    expect(fromFixture('missing-file').note).toMatch(/^Host caches unreadable: .*missing-file: index2\/size is missing or unreadable; using Cachegrind's defaults/)
    expect(fromFixture('garbage').note).toMatch(/index0\/size is "lots", not a size/)
    expect(levels(fromFixture('no-such-host', 'arm64'))).toEqual([
      ['D1', 16384, 4, 64],
      ['LL', 262144, 8, 64]
    ])
    for (const n of ['no-such-host', 'no-i1', 'missing-file', 'garbage']) expect(fromFixture(n).note).not.toContain('\n')
  })

  it('says on other architectures that Cachegrind uses its defaults there', () => {
    const h = fromFixture('two-levels', 'arm64')
    expect(h.asCachegrind).toBe(false)
    expect(h.note).toContain('Cachegrind does not read the caches on arm64')
  })

  it('parses a directory listing with non-index entries and a trace cache left out', () => {
    const dir = readSysfsDir(join(FIXTURES, 'two-levels'))
    expect(typeof dir).toBe('object')
    const caches = parseSysfsCaches({ ...(dir as object), uevent: {}, index9: { level: '1', type: 'Trace', size: '12K', ways_of_associativity: '8', coherency_line_size: '64' } })
    expect(caches).toHaveLength(3)
    expect(parseSysfsCaches({})).toBe('it lists no cache (no index* directory)')
  })
})

describe("the host hierarchy from AMD's CPUID leaves, as Cachegrind decodes them", () => {
  // This machine's registers (a VM on an AMD EPYC): the L3's legacy leaf says 320M with the
  // "see leaf 0x8000001D" associativity code, which Cachegrind reads as 1-way.
  const thisVm = { extLevel: 0x80000021, l1d: 0x20080140, l1i: 0x20080140, l2: 0x04006140, l3: 0x0a009140, signature: 0xa00f11 }

  it('decodes D1, L2 and L3 and simulates the LL Cachegrind simulates here (320M 1-way -> 256M 1-way)', () => {
    const caches = decodeAmdCpuid(thisVm)
    expect(caches).toEqual([
      { level: 1, kind: 'data', size: 32768, assoc: 8, lineSize: 64 },
      { level: 1, kind: 'instruction', size: 32768, assoc: 8, lineSize: 64 },
      { level: 2, kind: 'unified', size: 1024 * 1024, assoc: 8, lineSize: 64 },
      { level: 3, kind: 'unified', size: 320 * 2 ** 20, assoc: 1, lineSize: 64 }
    ])
    const h = hostHierarchyOf({ source: 'cpuid', caches: caches as never, where: 'CPUID', asCachegrind: true }, 'x64')
    expect(h.summary).toBe('D1 32K 8-way 64B, LL 256M 1-way 64B')
    expect(h.note).toBe('Host: D1 32K 8-way 64B, LL 256M 1-way 64B (read from CPUID, L3 as LL, as Cachegrind); LL 320M 1-way 64B simulated as LL 256M 1-way 64B (power-of-two sets, as Cachegrind).')
  })

  it('has no L3 when its size field is 0, and refuses a CPU without the leaves', () => {
    expect(decodeAmdCpuid({ ...thisVm, l3: 0 })).toHaveLength(3)
    expect(decodeAmdCpuid({ ...thisVm, extLevel: 0x80000004 })).toBe('CPUID has no leaf 0x80000006 (highest extended leaf 0x80000004)')
  })
})

/**
 * The host's caches on the command line: `stride hierarchy` prints them as --cache flags,
 * `stride simulate` without --cache simulates them (as Cachegrind does by default), and
 * `stride trace` without --cache still simulates nothing.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('host-hierarchy')
const env = fixedEnv(dir)
const session = join(dir, 'sh.stride')
const FIXTURES = join(__dirname, '..', 'services', 'fixtures', 'sysfs-cache')

const runsOf = (path: string) => (JSON.parse(strideOk(['info', path, '--json'], env)) as { runs: Array<{ config: { levels: unknown[] } }> }).runs

interface HierarchyJson {
  levels: Array<{ name: string; size: number; assoc: number; lineSize: number }>
  flags: string
  note: string
}

describe('stride hierarchy', () => {
  it("prints the host's D1 and LL as --cache flags, and where they come from on stderr", () => {
    const r = stride(['hierarchy'], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^--cache D1:\d+[KM]?:\d+:\d+ --cache LL:\d+[KMG]?:\d+:\d+\n$/)
    expect(r.stderr).toMatch(/^(Host: D1 .*, LL .*|Host caches unreadable: .*)\.\n$/)
    const json = JSON.parse(strideOk(['hierarchy', '--json'], env)) as HierarchyJson
    expect(json.levels.map((l) => l.name)).toEqual(['D1', 'LL'])
    expect(json.flags).toBe(r.stdout.trim())
  })

  it('reads another cache directory, and falls back to Cachegrind\'s defaults in one line when it cannot', () => {
    const intel = stride(['hierarchy'], { ...env, STRIDE_HOST_CACHE_DIR: join(FIXTURES, 'intel-12m-l3') })
    expect(intel.stdout).toBe('--cache D1:32K:8:64 --cache LL:12M:24:64\n')
    const gone = stride(['hierarchy'], { ...env, STRIDE_HOST_CACHE_DIR: join(dir, 'nowhere') })
    expect(gone.status).toBe(0)
    expect(gone.stdout).toBe('--cache D1:64K:2:64 --cache LL:256K:8:64\n')
    expect(gone.stderr).toBe(`Host caches unreadable: cannot list ${join(dir, 'nowhere')} (ENOENT); using Cachegrind's defaults, D1 64K 2-way 64B, LL 256K 8-way 64B.\n`)
    const bad = stride(['hierarchy', 'extra'], env)
    expect(bad.status).toBe(2)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe('stride trace and simulate without --cache', () => {
  beforeAll(() => void strideOk(['trace', '--launch', '/bin/sh', '--out', session, '--', '-c', 'exit 0'], env))

  it('trace stores no run', () => {
    expect(runsOf(session)).toEqual([])
  })

  it("simulate simulates the host's D1 and LL, saying so in one line", () => {
    const host = JSON.parse(strideOk(['hierarchy', '--json'], env)) as HierarchyJson
    const r = stride(['simulate', session], env)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toBe(`stride simulate: no --cache, so the host's caches. ${host.note}\n`)
    expect(r.stdout).toMatch(/^run 1: D1 \d+B \d+-way 64B lines, LL \d+B \d+-way \d+B lines\n/)
    const runs = runsOf(session)
    expect(runs[0]!.config.levels).toEqual(host.levels.map((l) => ({ ...l, policy: 'lru' })))
    // The same levels as the flags `stride hierarchy` prints.
    const again = stride(['simulate', session, ...host.flags.split(' '), '--json'], env)
    expect(again.status, again.stderr).toBe(0)
    expect(again.stderr).toBe('')
  })

  it("simulates Cachegrind's defaults where the host's caches cannot be read", () => {
    const r = stride(['simulate', session, '--json'], { ...env, STRIDE_HOST_CACHE_DIR: join(FIXTURES, 'missing-file') })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^stride simulate: no --cache, so the host's caches\. Host caches unreadable: .*index2\/size is missing or unreadable; using Cachegrind's defaults, D1 64K 2-way 64B, LL 256K 8-way 64B\.\n$/)
    expect((JSON.parse(r.stdout) as { levels: Array<{ name: string }> }).levels.map((l) => l.name)).toEqual(['D1', 'LL'])
  })
})

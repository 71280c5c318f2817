/**
 * Issue 50's programs (fixtures/counters.c, built at test time with pthreads): four threads
 * bump (a) adjacent counters of one array, (b) the same padded to 64 bytes, (c) one counter.
 * (a) is false sharing of `counters`, (b) nothing, (c) true sharing; the advisor's padding
 * what-if on (a), simulated on cores, removes the false-sharing misses.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RunAdvice } from '../../../shared/domain'
import { fixedEnv, stride, strideOk, tempDir } from '../../testing/cli-runner'

const home = tempDir('sharing')
const env = fixedEnv(home)
const CACHES = ['--cache', 'L1:32K:8:64', '--cache', 'LL:8M:16:64']
const CORES = ['--cores', '4', '--cache', 'L1:32K:8:64', '--cache', 'LL:8M:16:64:lru:shared']

function traced(layout: number, ...defines: string[]): string {
  const program = join(home, `counters${layout}${defines.join('')}`)
  const r = spawnSync('cc', ['-g', '-O1', '-pthread', `-DLAYOUT=${layout}`, ...defines.map((d) => `-D${d}`), '-o', program, join(__dirname, 'fixtures', 'counters.c')], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`cc failed: ${r.stderr}`)
  const session = `${program}.stride`
  strideOk(['trace', '--launch', program, '--functions', 'bump', '--out', session], env)
  strideOk(['simulate', session, ...CACHES], env)
  return session
}

interface CoresJson {
  schedule: string
  coherence: { trueSharing: number; falseSharing: number; invalidations: number }
  variables: Array<{ variable: string; trueSharing: number; falseSharing: number }>
  references: Array<{ id: string; coherence: { trueSharing: number; falseSharing: number }; threads: Array<{ thread: number; accesses: number; misses: number }> }>
  sharing: { lines: Array<{ variables: string[]; verdict: string; recorded: { trueSharing: number; falseSharing: number }; fineEstimate: { trueSharing: number; falseSharing: number }; threads: Array<{ thread: number; footprints: Array<{ field: string | null }> }> }> }
}
const cores = (session: string, ...args: string[]) => JSON.parse(strideOk(['simulate', session, ...CORES, '--json', ...args], env)) as CoresJson
const advise = (session: string) => JSON.parse(strideOk(['advise', session, '--json'], env)) as RunAdvice

describe('false and true sharing on pthread programs', () => {
  let adjacent: string
  let padded: string
  let one: string
  beforeAll(() => {
    adjacent = traced(0)
    padded = traced(1)
    one = traced(2)
  }, 300_000)

  it('(a) adjacent counters: false sharing of counters, each thread its own element, whatever the schedule', () => {
    const out = cores(adjacent)
    const [line] = out.sharing.lines
    expect(out.sharing.lines).toHaveLength(1)
    expect(line!.variables).toEqual(['counters'])
    expect(line!.verdict).toBe('false-sharing')
    expect(line!.fineEstimate.trueSharing).toBe(0)
    expect(line!.fineEstimate.falseSharing).toBeGreaterThan(100_000)
    expect(line!.threads.map((t) => t.footprints.map((f) => f.field)).sort()).toEqual([['counters[0]'], ['counters[1]'], ['counters[2]'], ['counters[3]']])
    // Valgrind ran each thread to its end before the next: the recorded order shows little.
    expect(line!.recorded.falseSharing).toBeLessThan(line!.fineEstimate.falseSharing / 100)
    const advice = advise(adjacent)
    const card = advice.items.find((i) => i.diagnosis === 'false-sharing')!
    expect(card.variables).toEqual(['counters'])
    expect(advice.items[0]!.diagnosis).toBe('false-sharing')
    expect(advice.items.some((i) => i.diagnosis === 'true-sharing')).toBe(false)
  })

  it('(a) on cores, threads interleaved: false-sharing coherence misses; the advisor\'s padding what-if removes them', () => {
    const out = cores(adjacent, '--interleave', '1')
    expect(out.schedule).toBe('interleave 1')
    expect(out.coherence.falseSharing).toBeGreaterThan(100_000)
    expect(out.coherence.trueSharing).toBe(0)
    expect(out.variables[0]).toMatchObject({ variable: 'counters', trueSharing: 0 })
    // Per thread: every thread's increments of its own counter miss.
    const hot = out.references[0]!
    expect(hot.coherence.falseSharing).toBeGreaterThan(50_000)
    expect(hot.threads).toHaveLength(4)
    const card = advise(adjacent).items.find((i) => i.diagnosis === 'false-sharing')!
    expect(card.action?.kind).toBe('cores')
    if (card.action?.kind !== 'cores') return
    const whatIf = JSON.parse(strideOk(['simulate', adjacent, ...card.action.command.split(' '), '--json'], env)) as CoresJson
    expect(whatIf.coherence).toMatchObject({ trueSharing: 0, falseSharing: 0 })
    expect(whatIf.sharing.lines).toEqual([])
  })

  it('(b) padded counters: no shared line, no sharing card, no coherence miss', () => {
    const out = cores(padded, '--interleave', '1')
    expect(out.sharing.lines).toEqual([])
    expect(out.coherence).toEqual({ trueSharing: 0, falseSharing: 0, invalidations: 0 })
    expect(advise(padded).items.filter((i) => i.diagnosis === 'false-sharing' || i.diagnosis === 'true-sharing')).toEqual([])
  })

  it('(c) one counter for all: true sharing, not false', () => {
    const out = cores(one, '--interleave', '1')
    expect(out.sharing.lines[0]!.verdict).toBe('true-sharing')
    expect(out.coherence.trueSharing).toBeGreaterThan(100_000)
    expect(out.coherence.falseSharing).toBe(0)
    const advice = advise(one)
    expect(advice.items.find((i) => i.diagnosis === 'true-sharing')!.variables).toEqual(['counters'])
    expect(advice.items.some((i) => i.diagnosis === 'false-sharing')).toBe(false)
  })

  it('threads run one after another, Valgrind reusing one id: still four threads, false sharing, never interleaved', () => {
    const out = cores(traced(0, 'SEQUENTIAL'))
    expect(out.sharing.lines).toHaveLength(1)
    const [line] = out.sharing.lines
    expect(new Set(line!.threads.map((t) => t.thread)).size).toBe(4)
    expect(line!.verdict).toBe('false-sharing')
    // One thread after another: no access ever follows another thread's write to a line it held.
    expect(line!.recorded).toEqual({ trueSharing: 0, falseSharing: 0 })
    expect(line!.fineEstimate.falseSharing).toBeGreaterThan(100_000)
  }, 120_000)

  it('says in one line what is wrong with --cores input', () => {
    const bad = (args: string[], pattern: RegExp) => {
      const r = stride(['simulate', adjacent, ...args], env)
      expect(r.status).not.toBe(0)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(pattern)
    }
    bad(['--cores', 'x', '--cache', 'L1:32K:8:64'], /--cores "x" must be a number of cores/)
    bad(['--cores', '2', '--place', '2:5', '--cache', 'L1:32K:8:64'], /core 5 does not exist/)
    bad(['--cores', '2', '--place', '9:0', '--cache', 'L1:32K:8:64'], /thread 9.*threads are 2, 3, 4, 5/)
    bad(['--cache', 'L1:32K:8:64:lru:shared'], /"shared" goes with --cores/)
    bad(['--cores', '2', '--cache', 'L1:32K:8:64:lru:shared'], /every level is shared/)
    bad(['--cores', '2', '--cache', 'L1:32K:8:64:lru:pf=next'], /prefetchers are not simulated with --cores/)
  })
})

/** Stride's default hierarchy against the D1 and LL Cachegrind itself simulates on this machine. */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { readHostHierarchy } from './host-hierarchy'

/** `valgrind --tool=cachegrind -v`'s "Cache configuration used:" D1 and LL, or null without Valgrind. */
function cachegrindCaches(): { D1: number[]; LL: number[] } | null {
  const r = spawnSync('valgrind', ['--tool=cachegrind', '-v', '--cachegrind-out-file=/dev/null', '/bin/true'], { encoding: 'utf8' })
  if (r.error) return null
  const level = (name: string): number[] => {
    const m = new RegExp(`^==\\d+==\\s+${name}: ([\\d,]+) B, (\\d+)-way, (\\d+) B lines$`, 'm').exec(r.stderr)
    if (!m) throw new Error(`no ${name} line in Cachegrind's -v output:\n${r.stderr}`)
    return [Number(m[1]!.replace(/,/g, '')), Number(m[2]), Number(m[3])]
  }
  return { D1: level('D1'), LL: level('LL') }
}

const expected = cachegrindCaches()
const host = readHostHierarchy()

describe('the host hierarchy', () => {
  it.skipIf(expected === null)('equals the D1 and LL Cachegrind simulates on this machine (skipped where valgrind is not installed)', (ctx) => {
    if (!host.asCachegrind) ctx.skip(`Stride says its figures may differ from Cachegrind's here: ${host.note}`)
    expect(host.config.levels.map((l) => [l.name, [l.size, l.assoc, l.lineSize]])).toEqual([
      ['D1', expected!.D1],
      ['LL', expected!.LL]
    ])
  })
})

/**
 * Loops of inlined code keep their own lines (C, -O2): sum_row's loop inlined into main's own
 * loop, whose header GCC places on sum_row's `j < n` test. Two loops at their two lines, the
 * outer one holding the inner, not one line for both.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { LoopStats } from '../../shared/domain'
import { fixedEnv, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('inlined-loops')
const env = fixedEnv(dir)

describe('loops of inlined code', () => {
  it("a caller's loop and the inlined callee's loop are two loops, each at its own line", () => {
    const source = join(__dirname, 'fixtures', 'inlined_loops.c')
    const program = join(dir, 'inlined_loops')
    const cc = spawnSync('cc', ['-g', '-O2', '-o', program, source], { encoding: 'utf8' })
    expect(cc.status, cc.stderr).toBe(0)
    const text = readFileSync(source, 'utf8').split('\n')
    const line = (marker: string) => text.findIndex((l) => l.includes(marker)) + 1
    const session = join(dir, 'inl.stride')
    strideOk(['trace', '--launch', program, '--functions', 'main', '--out', session, '--cache', 'L1:32K:8:64'], env)
    const { loops } = JSON.parse(strideOk(['report', session, '--by', 'loop', '--json'], env)) as { loops: LoopStats[] }
    const main = loops.filter((l) => l.function === 'main' && l.file !== null && basename(l.file) === 'inlined_loops.c')
    const at = (n: number) => main.filter((l) => l.line === n)
    const outer = at(line('OUTER LOOP'))
    const inner = at(line('INNER LOOP'))
    expect(outer.length, JSON.stringify(main.map((l) => l.name))).toBeGreaterThan(0)
    expect(inner.length, JSON.stringify(main.map((l) => l.name))).toBeGreaterThan(0)
    // The inner loop (sum_row's) sits in the outer one, and its reads are the outer loop's too.
    const outerIds = new Set(outer.map((l) => l.loop))
    expect(inner.some((l) => l.parent !== null && outerIds.has(l.parent))).toBe(true)
    const reads = (ls: LoopStats[]) => ls.reduce((n, l) => n + l.reads, 0)
    expect(reads(inner)).toBeGreaterThanOrEqual(64 * 256)
    expect(reads(outer)).toBeGreaterThan(reads(inner))
  })
})

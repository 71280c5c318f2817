/** The text tables of `simulate`, `report` and `trace --cache`: what they show and what they leave out. */
import { describe, expect, it } from 'vitest'
import { l1Run, readReference } from '../../shared/testing/reports'
import type { LineReport } from '../../shared/report-model'
import type { Io } from './io'
import { printDiff, printLineReport } from './report-output'
import { SHOWN_SHARE } from './shown-share'

function captured(): { io: Io; text: () => string } {
  const out: string[] = []
  return { io: { out: (l) => out.push(l), err: (l) => out.push(l), progress: () => {} }, text: () => out.join('\n') }
}

const line = (file: string, n: number, reads: number, writes: number, readMisses: number, writeMisses: number) => ({
  file,
  line: n,
  reads,
  writes,
  levels: { L1: { readMisses, writeMisses } }
})

/** A hot loop, a line that matters only by its write misses, and 1,000 start-up lines of one access each. */
function report(): LineReport {
  const startUp = Array.from({ length: 1000 }, (_, i) => line('dl-reloc.c', i + 1, 1, 0, i % 2, 0))
  const lines = [line('k.c', 10, 1_000_000, 250_000, 40_000, 20_000), line('k.c', 18, 5, 500, 0, 125), ...startUp]
  const sum = (f: (l: (typeof lines)[number]) => number) => lines.reduce((a, l) => a + f(l), 0)
  return {
    run: 3,
    config: { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false },
    levels: [{ name: 'L1', reads: sum((l) => l.reads), writes: sum((l) => l.writes), readMisses: sum((l) => l.levels.L1.readMisses), writeMisses: sum((l) => l.levels.L1.writeMisses) }],
    lines
  } as LineReport
}

describe('text tables', () => {
  it("shows, as cg_annotate does, only the rows holding 0.1% of some column, and says how many it left out", () => {
    expect(SHOWN_SHARE).toBe(0.001)
    const { io, text } = captured()
    printLineReport(report(), io)
    const rows = text().split('\n')
    expect(rows[0]).toBe('run 3: L1 32768B 8-way 64B lines')
    expect(rows.filter((r) => r.startsWith('k.c:'))).toEqual([expect.stringMatching(/^k\.c:10 +1000000 +250000 +40000 +20000$/), expect.stringMatching(/^k\.c:18 +5 +500 +0 +125$/)])
    // 125 of 20,125 write misses is 0.6%: kept though its reads and writes are nothing.
    expect(rows.some((r) => r.startsWith('dl-reloc.c:'))).toBe(false)
    expect(rows.at(-1)).toBe('... and 1000 more lines, each under 0.1% of every column (--all lists them).')
  })

  it("measures a row's share against the run's totals, not against the rows shown in the table", () => {
    // Accesses and misses that no line holds (accesses without a source line): k.c:18's 500
    // writes and 125 write misses are then under 0.1% of the run's, though not of the lines'.
    const r = report()
    r.levels[0]!.writes += 1_000_000
    r.levels[0]!.writeMisses += 1_000_000
    const { io, text } = captured()
    printLineReport(r, io)
    expect(text().split('\n').filter((row) => row.startsWith('k.c:'))).toEqual([expect.stringMatching(/^k\.c:10 /)])
    expect(text().split('\n').at(-1)).toBe('... and 1001 more lines, each under 0.1% of every column (--all lists them).')
  })

  it('shows every row with `all`, and names the way to list them it is given', () => {
    const all = captured()
    printLineReport(report(), all.io, { all: true })
    expect(all.text().split('\n').filter((r) => r.startsWith('dl-reloc.c:'))).toHaveLength(1000)
    expect(all.text()).not.toMatch(/more lines/)
    const trace = captured()
    printLineReport(report(), trace.io, { more: 'stride report s.stride --all lists them' })
    expect(trace.text().split('\n').at(-1)).toBe('... and 1000 more lines, each under 0.1% of every column (stride report s.stride --all lists them).')
  })

  it('lines its columns up: labels left, counts right, two spaces apart', () => {
    const { io, text } = captured()
    printLineReport(report(), io)
    const table = text().split('\n').filter((r) => r.startsWith('file:line') || r.startsWith('k.c:'))
    expect(table[0]).toBe('file:line    reads  writes  L1 rd miss  L1 wr miss')
    expect(table[2]).toBe('k.c:18           5     500           0         125')
    expect(new Set(table.map((r) => r.length)).size).toBe(1)
  })

  it('--against shows the rows whose misses change by 0.1% of a level, biggest first, and counts the others', () => {
    const ref = (id: string, line: number, misses: number) => readReference(id, line, id.split('_')[0]!, 1000 - misses, misses)
    const run = (id: number, refs: ReturnType<typeof ref>[]) => l1Run(refs, refs.reduce((a, r) => a + r.levels.L1!.misses, 0), id)
    // 100,000 misses before: a change of 100 is the floor. Line 30 drops, 31 rises by the floor,
    // 32 by less, 33 not at all.
    const before = run(1, [ref('A_Read_0', 30, 90_000), ref('B_Read_1', 31, 9_000), ref('C_Read_2', 32, 900), ref('D_Read_3', 33, 100)])
    const after = run(2, [ref('A_Read_0', 30, 10_000), ref('B_Read_1', 31, 9_100), ref('C_Read_2', 32, 999), ref('D_Read_3', 33, 100)])
    const { io, text } = captured()
    printDiff(before, after, 'line', io)
    const rows = text().split('\n')
    expect(rows.filter((r) => r.startsWith('k.c:')).map((r) => r.split(/ +/)[0])).toEqual(['k.c:30', 'k.c:31'])
    expect(rows.at(-1)).toBe("... and 2 more lines, each changing by under 0.1% of every level's misses (--all lists them).")
    const all = captured()
    printDiff(before, after, 'line', all.io, { all: true })
    expect(all.text().split('\n').filter((r) => r.startsWith('k.c:'))).toHaveLength(4)
  })
})

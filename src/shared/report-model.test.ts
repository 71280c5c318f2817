import { describe, expect, it } from 'vitest'
import type { ReferenceLevelStats, ReferenceStats } from './domain'
import { groupLines } from './report-model'

const level = (readMisses: number, writeMisses: number, hits: number, usedBytes?: number, lineEnds?: number): ReferenceLevelStats => ({
  hits,
  misses: readMisses + writeMisses,
  readMisses,
  writeMisses,
  ...(usedBytes !== undefined ? { temporalHits: 1, spatialHits: hits - 1, usedBytes, lineEnds: lineEnds!, spatialReuse: 0 } : {})
})

function ref(id: string, file: string | null, line: number | null, levels: Record<string, ReferenceLevelStats>): ReferenceStats {
  return { id, pc: '0x0', kind: 'read', file, line, function: 'f', variable: null, reads: 10, writes: 2, levels }
}

describe('groupLines', () => {
  it('sums references per file and line, sorted by file then line; spatial reuse from the summed inputs', () => {
    const lines = groupLines(
      [
        ref('a', '/src/b.c', 7, { L1: level(1, 0, 5, 32, 2), DTLB: level(0, 1, 3) }),
        ref('b', '/src/a.c', 9, { L1: level(2, 0, 4, 8, 1) }),
        ref('c', '/src/b.c', 7, { L1: level(0, 3, 2, 64, 1) }),
        ref('d', '/src/a.c', 3, { L1: level(0, 0, 1, 4, 1) }),
        ref('e', null, null, { L1: level(9, 9, 9, 9, 9) })
      ],
      ['L1', 'DTLB'],
      [64, 4096]
    )
    expect(lines.map((l) => `${l.file}:${l.line}`)).toEqual(['/src/a.c:3', '/src/a.c:9', '/src/b.c:7'])
    const b7 = lines[2]!
    expect(b7.reads).toBe(20)
    expect(b7.writes).toBe(4)
    expect(Object.keys(b7.levels)).toEqual(['L1', 'DTLB'])
    expect(b7.levels.L1).toEqual({ readMisses: 1, writeMisses: 3, hits: 7, misses: 4, temporalHits: 2, spatialHits: 5, spatialReuse: 96 / (64 * 3) })
    expect(Object.keys(b7.levels.L1!)).toEqual(['readMisses', 'writeMisses', 'hits', 'misses', 'temporalHits', 'spatialHits', 'spatialReuse'])
    expect(b7.levels.DTLB).toEqual({ readMisses: 0, writeMisses: 1, hits: 3, misses: 1 })
    // A level no reference of the line has stays at zero misses.
    expect(lines[0]!.levels.DTLB).toEqual({ readMisses: 0, writeMisses: 0 })
  })
})

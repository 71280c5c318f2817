import { describe, expect, it } from 'vitest'
import { MissClassifier } from './miss-classes'

// 512 bytes, 2 ways, 64-byte lines: 8 lines, 4 sets; lines 4 sets apart share a set.
const CACHE = { size: 512, assoc: 2, lineSize: 64 }

/** Runs accesses through the classifier and a 2-way LRU of the same cache, as the run would. */
function run(accesses: Array<[point: number, address: number]>, points: number) {
  const c = new MissClassifier(CACHE, points)
  const sets = new Map<number, number[]>()
  const misses = new Float64Array(points)
  for (const [p, a] of accesses) {
    c.access(p, a, 8)
    const line = Math.floor(a / 64)
    const set = sets.get(line % 4) ?? []
    const at = set.indexOf(line)
    if (at >= 0) set.splice(at, 1)
    else misses[p]!++
    set.unshift(line)
    sets.set(line % 4, set.slice(0, 2))
  }
  return { classes: c.classify(misses), misses }
}

describe('MissClassifier', () => {
  it('three lines fighting for one 2-way set are conflict misses: the footprint fits', () => {
    const acc: Array<[number, number]> = []
    for (let r = 0; r < 10; r++) for (let k = 0; k < 3; k++) acc.push([k, k * 256]) // lines 0, 4, 8: set 0
    const { classes, misses } = run(acc, 3)
    expect([...misses]).toEqual([10, 10, 10])
    for (const c of classes) expect(c).toEqual({ compulsory: 1, capacity: 0, conflict: 9, sets: 1 })
  })

  it('a loop over more lines than the cache holds has capacity misses, not conflicts', () => {
    const acc: Array<[number, number]> = []
    for (let r = 0; r < 5; r++) for (let l = 0; l < 12; l++) acc.push([0, l * 64])
    const { classes } = run(acc, 1)
    expect(classes[0]).toEqual({ compulsory: 12, capacity: 48, conflict: 0, sets: 4 })
  })

  it('a stream touched once has only first-touch misses; an access over two lines counts once', () => {
    const c = new MissClassifier(CACHE, 1)
    c.access(0, 60, 8) // lines 0 and 1
    c.access(0, 130, 8) // line 2
    expect(c.classify([2])[0]).toEqual({ compulsory: 2, capacity: 0, conflict: 0, sets: 3 })
  })
})

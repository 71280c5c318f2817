import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareLines, groupLines } from '../../shared/report-model'
import { linePlan } from './line-plan'

/** The plan of points given as [file, line] pairs. */
const planOf = (points: Array<[string | null, number | null]>) => linePlan(points.map((p) => p[0]), points.map((p) => p[1]))

describe('linePlan', () => {
  it("gives each point its line (none without a file or line) and the lines in the report's order", () => {
    const plan = planOf([['/s/b.c', 3], [null, 4], ['/s/a.c', 9], ['/s/b.c', 3], ['/s/a.c', 2], ['/s/b.c', 0]])
    expect(Array.from(plan.lineOf)).toEqual([0, -1, 1, 0, 2, -1])
    expect(Array.from(plan.order, (i) => `${plan.files[i]}:${plan.lines[i]}`)).toEqual(['/s/a.c:2', '/s/a.c:9', '/s/b.c:3'])
  })

  it('orders files the collation calls equal by their text, whichever was met first, as groupLines does', () => {
    // The same name composed and decomposed: localeCompare says 0.
    const composed = '/s/\u00e9.c'
    const decomposed = '/s/e\u0301.c'
    expect(composed.localeCompare(decomposed)).toBe(0)
    for (const files of [[composed, decomposed], [decomposed, composed]]) {
      const plan = planOf(files.map((f) => [f, 1]))
      const refs = files.map((file) => ({ id: file, pc: '0x1', kind: 'read' as const, file, line: 1, function: 'f', variable: null, reads: 1, writes: 0, levels: {} }))
      expect(Array.from(plan.order, (i) => plan.files[i])).toEqual([decomposed, composed])
      expect(groupLines(refs, []).map((l) => l.file)).toEqual([decomposed, composed])
    }
  })

  it('orders lines exactly as sorting them with compareLines does', () => {
    // Names the collation orders apart from their text (case, accents) or calls equal (composed and decomposed).
    const name = fc.constantFrom('/s/a.c', '/s/A.c', '/s/b.c', '/s/\u00e9.c', '/s/e\u0301.c', '/s/e.c', '/s/E.c', '/t/a.c', '/s/a.h', 'b.c', '/s/B.c')
    const point = fc.tuple(fc.option(name, { nil: null }), fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }))
    fc.assert(
      fc.property(fc.array(point, { maxLength: 60 }), (points) => {
        const plan = planOf(points)
        const byCompare = Array.from(plan.files.keys()).sort((a, b) => compareLines(plan.files[a]!, plan.lines[a]!, plan.files[b]!, plan.lines[b]!))
        expect(Array.from(plan.order)).toEqual(byCompare)
      }),
      { numRuns: 500 }
    )
  })
})

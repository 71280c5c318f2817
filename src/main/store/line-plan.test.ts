import { describe, expect, it } from 'vitest'
import type { AccessPoint } from '../../shared/domain'
import { groupLines } from '../../shared/report-model'
import { linePlan } from './line-plan'

const point = (file: string | null, line: number | null): AccessPoint => ({ id: `p${line}`, pc: '0x1', kind: 'read', file, line, function: 'f', variable: null }) as AccessPoint

describe('linePlan', () => {
  it("gives each point its line (none without a file or line) and the lines in the report's order", () => {
    const plan = linePlan([point('/s/b.c', 3), point(null, 4), point('/s/a.c', 9), point('/s/b.c', 3), point('/s/a.c', 2), point('/s/b.c', 0)])
    expect(Array.from(plan.lineOf)).toEqual([0, -1, 1, 0, 2, -1])
    expect(Array.from(plan.order, (i) => plan.labels[i])).toEqual(['/s/a.c:2', '/s/a.c:9', '/s/b.c:3'])
  })

  it('orders files the collation calls equal by their text, whichever was met first, as groupLines does', () => {
    // The same name composed and decomposed: localeCompare says 0.
    const composed = '/s/\u00e9.c'
    const decomposed = '/s/e\u0301.c'
    expect(composed.localeCompare(decomposed)).toBe(0)
    for (const files of [[composed, decomposed], [decomposed, composed]]) {
      const plan = linePlan(files.map((f) => point(f, 1)))
      const refs = files.map((file) => ({ id: file, pc: '0x1', kind: 'read' as const, file, line: 1, function: 'f', variable: null, reads: 1, writes: 0, levels: {} }))
      expect(Array.from(plan.order, (i) => plan.files[i])).toEqual([decomposed, composed])
      expect(groupLines(refs, []).map((l) => l.file)).toEqual([decomposed, composed])
    }
  })
})

import { describe, expect, it } from 'vitest'
import { loopLine } from './session-symbols'

describe("a loop's source line", () => {
  it('is the first line its accesses come from, not the header placed on the closing brace', () => {
    // conflict.c: the for-loop's condition compiled at the loop's end maps to line 31 ("}").
    expect(loopLine({ file: 'c.c', line: 31 }, [{ file: 'c.c', line: 30 }, { file: 'c.c', line: 30 }, { file: 'other.h', line: 2 }])).toEqual({ file: 'c.c', line: 30 })
  })
  it("keeps the header's line when no access of the loop was traced", () => {
    expect(loopLine({ file: 'c.c', line: 29 }, [])).toEqual({ file: 'c.c', line: 29 })
    expect(loopLine(undefined, [{ file: null, line: null }])).toEqual({ file: null, line: null })
  })
})

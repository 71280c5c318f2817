import { describe, expect, it } from 'vitest'
import { isAllocLine, parseAllocLine, parseFrameLine } from './alloc-events'

describe('allocation lines', () => {
  it('reads allocations, frees and the backtrace frames after them', () => {
    const line = '**23379** stride-alloc c 4049b90 7d00 0 1092a4'
    expect(isAllocLine(line)).toBe(true)
    expect(parseAllocLine(line)).toEqual({ kind: 'alloc', ptr: 0x4049b90, size: 0x7d00, old: 0, site: 0x1092a4 })
    expect(parseAllocLine('**1** stride-alloc r 5000 40 4000 10')).toMatchObject({ ptr: 0x5000, old: 0x4000 })
    expect(parseAllocLine('**1** stride-alloc f 5000')).toEqual({ kind: 'free', ptr: 0x5000 })
    expect(parseFrameLine('==30261==    at 0x484A11E: malloc (allocs.c:64)')).toBe(0x484a11e)
    expect(parseFrameLine('==30261==    by 0x109247: xmalloc (vpb.c:3)')).toBe(0x109247)
  })
  it('ignores other log lines and damaged ones', () => {
    expect(isAllocLine('==1== Lackey, an example Valgrind tool')).toBe(false)
    expect(parseFrameLine('==1== Process terminating with default action of signal 11')).toBeNull()
    expect(parseAllocLine('**1** stride-alloc m zz 10 0 0')).toBeNull()
    expect(parseAllocLine('**1** stride-alloc q 1 2 3')).toBeNull()
  })
})

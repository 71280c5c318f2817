import { describe, expect, it } from 'vitest'
import { isAllocLine, parseAllocLine } from './alloc-events'

describe('allocation lines', () => {
  it('reads allocations with their context and frees', () => {
    const line = '**23379** stride-alloc c 4049b90 7d00 0 1092a4 487424a 4874305 0'
    expect(isAllocLine(line)).toBe(true)
    expect(parseAllocLine(line)).toEqual({ kind: 'alloc', ptr: 0x4049b90, size: 0x7d00, old: 0, context: [0x1092a4, 0x487424a, 0x4874305] })
    expect(parseAllocLine('**1** stride-alloc r 5000 40 4000 10 0 0 0')).toMatchObject({ ptr: 0x5000, old: 0x4000 })
    expect(parseAllocLine('**1** stride-alloc f 5000')).toEqual({ kind: 'free', ptr: 0x5000 })
  })
  it('ignores other log lines and damaged ones', () => {
    expect(isAllocLine('==1== Lackey, an example Valgrind tool')).toBe(false)
    expect(parseAllocLine('**1** stride-alloc m zz 10 0 0')).toBeNull()
    expect(parseAllocLine('**1** stride-alloc q 1 2 3')).toBeNull()
  })
})

import { describe, expect, it } from 'vitest'
import { AddressNamer } from './session-sharing'

describe('AddressNamer', () => {
  const namer = new AddressNamer([
    { name: 'counters', start: 0x1000, size: 32, group: 'g', dims: [4], elementSize: 8 },
    { name: 'flag', start: 0x1020, size: 4, group: 'g', dims: null, elementSize: null },
    { name: 'far', start: 0x2000, size: 8, group: 'g', dims: null, elementSize: null }
  ])

  it('names an address as element and offset, or offset alone without elements', () => {
    expect(namer.field(0x1008)).toBe('counters[1]')
    expect(namer.field(0x100c)).toBe('counters[1]+4')
    expect(namer.field(0x1022)).toBe('flag+2')
    expect(namer.field(0x1800)).toBeNull()
  })

  it('lists the data structures a line holds, from inside one or from a gap', () => {
    expect(namer.variablesIn(0x1000, 64)).toEqual(['counters', 'flag'])
    expect(namer.variablesIn(0x0fc0, 64)).toEqual([])
    expect(namer.variablesIn(0x1fc0, 128)).toEqual(['far'])
    expect(namer.variableAt(0x1024)).toBeNull()
  })
})

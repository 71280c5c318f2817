import { describe, expect, it } from 'vitest'
import type { MissClasses } from './domain'
import { groupCause } from './miss-causes'

const classes: MissClasses = {
  level: 'L1',
  sets: 64,
  source: 'every access of the trace',
  byReference: {
    x: { compulsory: 10, capacity: 0, conflict: 90, sets: 4 },
    y: { compulsory: 10, capacity: 90, conflict: 0, sets: 64 },
    z: { compulsory: 0, capacity: 0, conflict: 0, sets: 0 }
  }
}

describe('groupCause', () => {
  it('calls a group a conflict only when most of its misses are conflict misses', () => {
    expect(groupCause(['x'], classes)).toEqual({ cause: 'conflict', conflict: 90, capacity: 0, compulsory: 10 })
    expect(groupCause(['y'], classes)?.cause).toBe('capacity')
    expect(groupCause(['x', 'y'], classes)?.cause).toBe('mixed')
  })
  it('says nothing without classes, or without misses', () => {
    expect(groupCause(['x'], undefined)).toBeNull()
    expect(groupCause(['z'], classes)).toBeNull()
    expect(groupCause(['w'], classes)).toBeNull()
  })
  it('counts a reference the classes do not list as one without misses (the advice lists only those with some)', () => {
    expect(groupCause(['x', 'w'], classes)).toEqual({ cause: 'conflict', conflict: 90, capacity: 0, compulsory: 10 })
  })
})

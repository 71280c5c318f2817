import { describe, expect, it } from 'vitest'
import { STACK_PAD_VARIABLE, stackPad } from './stack-pad'

/** The stack's move (Valgrind's layout, initimg-linux.c) for strings grown by s bytes and p more pointers, from a top at `top`. */
function move(top: number, strings: number, s: number, p: number): number {
  const sp = (size: number) => Math.floor((top - size) / 16) * 16
  const frame = (str: number, pointers: number) => pointers * 8 + Math.ceil(str / 8) * 8
  return sp(frame(strings, 40)) - sp(frame(strings + s, 40 + p))
}

describe('the stack padding', () => {
  it('is nothing when nothing is added', () => {
    expect(stackPad(0)).toBeNull()
  })

  it('makes the stack move a whole number of pages, whatever the environment around it', () => {
    for (const added of [1, 7, 83, 84, 200, 4077, 4078, 4079, 5000]) {
      const pad = stackPad(added)!
      const s = added + STACK_PAD_VARIABLE.length + 1 + pad.length + 1
      for (const strings of [1000, 1001, 1005, 1008, 2047]) for (const top of [0x1fff001000, 0x1fff000ff8]) {
        const m = move(top, strings, s, 1)
        expect(m % 4096, `added ${added}, strings ${strings}`).toBe(0)
        expect(m).toBeGreaterThan(0)
      }
    }
  })

  it('refuses a count that is not a whole number', () => {
    expect(() => stackPad(-1)).toThrow(/whole number/)
    expect(() => stackPad(1.5)).toThrow(/whole number/)
  })
})

/**
 * Where the traced program's stack starts. Valgrind lays out the client's stack from its
 * environment and arguments (coregrind's initimg: argc, argv, envp and auxv pointers, then the
 * strings rounded to 8 bytes, the whole rounded down to 16), so every byte Stride adds to the
 * environment moves the program's stack: the allocator wrappers' entry in LD_PRELOAD (83 bytes
 * here) put every stack variable 96 bytes lower than under Cachegrind, across other cache-line
 * boundaries, and a function's misses on its stack lines differed from Cachegrind's. A padding
 * variable makes the move exactly one or more 4 KiB pages: a first-level cache's sets (at most
 * one page a way) and every line boundary stay where Cachegrind has them.
 */

/** The variable that carries the padding (visible to the program, documented in docs/CLI.md). */
export const STACK_PAD_VARIABLE = 'STRIDE_STACK_PAD'

const PAGE = 4096
/** One more environment pointer (the padding variable's). */
const POINTER = 8

/**
 * The padding variable's value when the environment's strings grow by `addedBytes` (beyond
 * what the program gets under Cachegrind), or null when nothing is added. With s bytes of
 * strings in all (a multiple of 8, so their rounding adds nothing) and one pointer more, the
 * stack moves by s + 8 before the final rounding to 16; s + 8 a whole number of pages is a
 * multiple of 16, which that rounding keeps exact.
 */
export function stackPad(addedBytes: number): string | null {
  if (!(Number.isInteger(addedBytes) && addedBytes >= 0)) throw new Error(`added environment bytes must be a whole number, not ${addedBytes}`)
  if (addedBytes === 0) return null
  // The variable's own bytes: NAME=, the value, its NUL.
  const fixed = addedBytes + STACK_PAD_VARIABLE.length + 2
  const pages = Math.ceil((fixed + POINTER) / PAGE)
  return 'x'.repeat(pages * PAGE - POINTER - fixed)
}

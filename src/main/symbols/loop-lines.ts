/**
 * A loop's source line where inlined code is part of it. The line table maps an instruction
 * to the innermost inlined function's line, so a caller's loop whose body holds an inlined
 * helper took the helper's line (lz4: every loop that reads through LZ4_read_ARCH became
 * `loop@lz4.c:386`), and two loops became one. The rules:
 * - A loop belongs to the deepest inline instance holding both its header (the back edge's
 *   target) and its last back edge: a loop of an inlined callee has both inside that copy, a
 *   caller's loop has its latch (the condition) in the caller.
 * - An instance is its chain from the outermost function: each level's function and, above
 *   the last, the call site (file, line, column: the same for every address of one inlined copy).
 * - Its line is the first line, at that level, of its latch and its traced accesses: an access
 *   in a deeper inlined call counts at its call site. The latch is a for or while loop's
 *   condition, on the statement's line: without it a loop whose first access is its inner
 *   loop's had the inner loop's line, and the two were one. The header's own line is not
 *   taken (often the closing brace or the function's opening line, where compilers put the
 *   condition) unless nothing else has a line at that level.
 * - Its accesses are those in its address range that are code of that instance (or inlined
 *   there): the range of one inlined copy's loop may hold blocks of another copy.
 * Chains are innermost level first, as llvm-symbolizer answers; a one-level chain (no inline
 * information) is the plain line table.
 */
import type { InlineLevel } from './inline-chain'
import { LoopIndex, type Loop } from './loops'

export interface LoopLine {
  file: string | null
  line: number | null
}

const sameSite = (a: InlineLevel, b: InlineLevel) => a.file === b.file && a.line === b.line && (a.column ?? 0) === (b.column ?? 0)

/** How many levels, from the outermost, `a` and `b` (outermost first) share as one inline instance (0: none). */
function sharedLevels(a: readonly InlineLevel[], b: readonly InlineLevel[]): number {
  if (a.length === 0 || b.length === 0 || a[0]!.function !== b[0]!.function) return 0
  let k = 1
  while (k < a.length && k < b.length && sameSite(a[k - 1]!, b[k - 1]!) && a[k]!.function === b[k]!.function) k++
  return k
}

/**
 * Pure: the inline instance a loop is in, outermost level first (its last level is the
 * loop's function, at the header's line there); empty when the header has no line.
 */
export function loopInstance(header: readonly InlineLevel[], latch: readonly InlineLevel[]): InlineLevel[] {
  const h = [...header].reverse()
  if (h.length === 0) return []
  const l = [...latch].reverse()
  // A latch without a line (or in another function) leaves the header's own instance.
  const shared = l.length > 0 ? sharedLevels(h, l) : 0
  return h.slice(0, shared > 0 ? shared : h.length)
}

/**
 * Pure: whether an access (its chain, innermost first) is code of the loop's instance or of a
 * call inlined there. The compiler interleaves the blocks of two inlined copies of a function,
 * so an address range of one copy's loop also holds the other copy's accesses: those are not
 * in the loop. An access without a line cannot be told apart: it is.
 */
export function inLoopInstance(instance: readonly InlineLevel[], chain: readonly InlineLevel[]): boolean {
  if (instance.length === 0 || chain.length === 0) return true
  return sharedLevels(instance, [...chain].reverse()) === instance.length
}

/** Pure: the loop's line from its instance (loopInstance), its latch's chain and the chains of the traced accesses in it. */
export function loopLineFromChains(instance: readonly InlineLevel[], latch: readonly InlineLevel[], body: ReadonlyArray<readonly InlineLevel[]>): LoopLine {
  if (instance.length === 0) {
    // No line for the header: the plain rule over the accesses' innermost lines.
    const file = body.find((b) => b.length > 0)?.[0]!.file ?? null
    let best: number | null = null
    for (const b of body) if (b[0] && b[0].file === file && (best === null || b[0].line < best)) best = b[0].line
    return { file, line: best }
  }
  const at = instance.length - 1
  const file = instance[at]!.file
  let best: number | null = null
  for (const chain of [latch, ...body]) {
    if (chain.length === 0 || !inLoopInstance(instance, chain)) continue
    const level = chain[chain.length - 1 - at]!
    if (level.file === file && (best === null || level.line < best)) best = level.line
  }
  return { file, line: best ?? instance[at]!.line }
}

/**
 * Pure: the loops' nesting with their instances: a loop's parent is the innermost earlier loop
 * whose range holds its range and whose instance holds its instance (a loop of one inlined copy
 * is not nested in a loop of another copy whose range happens to span it). Returns each loop
 * with its parent (-1: none) and depth; parents come first, as parseLoops orders them.
 */
export function nestLoops<L extends Loop>(loops: readonly L[], instances: ReadonlyArray<readonly InlineLevel[]>): L[] {
  // The loops whose range holds a loop's header, from the index (gdb has tens of thousands of loops).
  const index = new LoopIndex(loops)
  const out: L[] = []
  loops.forEach((l, i) => {
    let parent = -1
    for (const j of index.containing(l.start)) {
      const p = loops[j]!
      if (j >= i || p.function !== l.function || l.end > p.end) continue
      if (!inLoopInstance(instances[j] ?? [], [...(instances[i] ?? [])].reverse())) continue
      const best = parent >= 0 ? loops[parent]! : null
      if (!best || p.start > best.start || (p.start === best.start && p.end <= best.end)) parent = j
    }
    out.push({ ...l, parent, depth: parent < 0 ? 0 : out[parent]!.depth + 1 })
  })
  return out
}

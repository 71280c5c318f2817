/**
 * A function's loops as the user reads them: one entry per loop header (file:line), nested
 * under the loop that encloses it. The session's loop table has one row per loop of the
 * machine code, so a loop the compiler copied (inlined into several places, unrolled,
 * versioned) has many rows with one header line: lz4's `LZ4_count` loop is 11 rows in one
 * function. They are one loop to the reader, and one item to SIGMA's notation
 * (`loop@lz4.c:672` takes every copy), so they are one entry here, saying how many copies.
 */
import type { LoopId, LoopInfo } from '../../shared/domain'

export interface LoopNest {
  /** `file:line` of the header, the full path: the entry's identity. */
  key: string
  file: string
  line: number
  /** The loop rows (machine-code loops) this entry stands for. */
  ids: LoopId[]
  /** Smallest depth among the copies (0: outermost). */
  depth: number
  children: LoopNest[]
}

const keyOf = (l: LoopInfo) => `${l.file}:${l.line}`

/**
 * The loops of `fn` with a known header line as a forest of header entries, in line order. A
 * header's parent is the header enclosing most of its copies, if that one is shallower (copies
 * nested differently never make a cycle); otherwise it is shown at the top.
 */
export function computeLoopNests(loops: readonly LoopInfo[], fn: string): LoopNest[] {
  const byId = new Map<LoopId, LoopInfo>()
  for (const l of loops) byId.set(l.id, l)
  const nests = new Map<string, LoopNest>()
  const parents = new Map<string, Map<string, number>>()
  for (const l of loops) {
    if (l.function !== fn || l.file === null || l.line === null) continue
    const key = keyOf(l)
    let n = nests.get(key)
    if (!n) {
      n = { key, file: l.file, line: l.line, ids: [], depth: l.depth, children: [] }
      nests.set(key, n)
      parents.set(key, new Map())
    }
    n.ids.push(l.id)
    n.depth = Math.min(n.depth, l.depth)
    // The nearest enclosing loop with another header (a copy inside a copy of itself is the same loop).
    let p = l.parent === null ? undefined : byId.get(l.parent)
    for (let guard = 0; p && (p.file === null || p.line === null || keyOf(p) === key) && guard < 256; guard++) p = p.parent === null ? undefined : byId.get(p.parent)
    if (p && p.file !== null && p.line !== null) {
      const votes = parents.get(key)!
      votes.set(keyOf(p), (votes.get(keyOf(p)) ?? 0) + 1)
    }
  }
  const roots: LoopNest[] = []
  for (const n of nests.values()) {
    let best: LoopNest | undefined
    let most = 0
    for (const [k, votes] of parents.get(n.key)!) {
      const cand = nests.get(k)
      if (cand && cand.depth < n.depth && (votes > most || (votes === most && best && cand.key < best.key))) {
        best = cand
        most = votes
      }
    }
    ;(best ? best.children : roots).push(n)
  }
  const order = (xs: LoopNest[]) => {
    xs.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
    for (const x of xs) order(x.children)
    return xs
  }
  return order(roots)
}

/** Every entry of a forest, parents before their children. */
export function flattenLoopNests(nests: readonly LoopNest[]): LoopNest[] {
  return nests.flatMap((n) => [n, ...flattenLoopNests(n.children)])
}

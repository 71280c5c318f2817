/**
 * Tarjan's strongly connected components over a directed graph given as adjacency lists of
 * node indexes. Iterative (an explicit stack instead of recursion) so a long chain of a few
 * thousand nodes cannot overflow the call stack. Shared by the evictor graph (renderer) and
 * the advisor (main): both call a cycle of evictors what METRIC section 8 calls one.
 */

/** Components in reverse topological order (Tarjan's natural order); every node in exactly one. */
export function stronglyConnected(adjacency: ReadonlyArray<ReadonlyArray<number>>): number[][] {
  const n = adjacency.length
  const index = new Int32Array(n).fill(-1)
  const low = new Int32Array(n)
  const onStack = new Uint8Array(n)
  const stack: number[] = []
  const out: number[][] = []
  let next = 0
  // Call frames: node and the position of the next successor to visit.
  const frameNode: number[] = []
  const frameEdge: number[] = []

  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue
    frameNode.push(root)
    frameEdge.push(0)
    index[root] = low[root] = next++
    stack.push(root)
    onStack[root] = 1
    while (frameNode.length > 0) {
      const top = frameNode.length - 1
      const v = frameNode[top]!
      const succ = adjacency[v]!
      const e = frameEdge[top]!
      if (e < succ.length) {
        frameEdge[top] = e + 1
        const w = succ[e]!
        if (w < 0 || w >= n) throw new RangeError(`edge ${v} -> ${w} leaves a graph of ${n} nodes`)
        if (index[w] === -1) {
          index[w] = low[w] = next++
          stack.push(w)
          onStack[w] = 1
          frameNode.push(w)
          frameEdge.push(0)
        } else if (onStack[w]) {
          low[v] = Math.min(low[v]!, index[w]!)
        }
        continue
      }
      // All successors done: v roots a component when nothing below reached above it.
      if (low[v] === index[v]) {
        const comp: number[] = []
        let w: number
        do {
          w = stack.pop()!
          onStack[w] = 0
          comp.push(w)
        } while (w !== v)
        out.push(comp)
      }
      frameNode.pop()
      frameEdge.pop()
      if (frameNode.length > 0) {
        const parent = frameNode[frameNode.length - 1]!
        low[parent] = Math.min(low[parent]!, low[v]!)
      }
    }
  }
  return out
}

/** The components that hold a cycle through two or more nodes (self-loops alone do not count). */
export function cyclicComponents(adjacency: ReadonlyArray<ReadonlyArray<number>>): number[][] {
  return stronglyConnected(adjacency).filter((c) => c.length > 1)
}

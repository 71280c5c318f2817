import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cyclicComponents, stronglyConnected } from './strongly-connected'

const sorted = (comps: number[][]) => comps.map((c) => [...c].sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!)

/** Reference answer: u and v share a component iff each reaches the other. */
function bruteForce(adj: number[][]): number[][] {
  const n = adj.length
  const reach = adj.map((_, s) => {
    const seen = new Set([s])
    const todo = [s]
    while (todo.length) for (const w of adj[todo.pop()!]!) if (!seen.has(w)) (seen.add(w), todo.push(w))
    return seen
  })
  const done = new Set<number>()
  const out: number[][] = []
  for (let v = 0; v < n; v++) {
    if (done.has(v)) continue
    const comp = [...Array(n).keys()].filter((u) => reach[v]!.has(u) && reach[u]!.has(v))
    comp.forEach((u) => done.add(u))
    out.push(comp)
  }
  return out
}

describe('stronglyConnected', () => {
  it('finds the METRIC Figure 16 three-cycle and leaves a tail outside it', () => {
    // 0=A 1=B 2=C 3=x: A->B, B->C, C->A (evictor -> evictee), x->A only.
    const adj = [[1], [2], [0], [0]]
    expect(sorted(stronglyConnected(adj))).toEqual([[0, 1, 2], [3]])
    expect(sorted(cyclicComponents(adj))).toEqual([[0, 1, 2]])
  })

  it('does not count a self-loop as a cycle between references', () => {
    expect(cyclicComponents([[0], []])).toEqual([])
  })

  it('lists components in reverse topological order', () => {
    // {0,1} -> {2,3}: the sink component comes first.
    const comps = stronglyConnected([[1, 2], [0], [3], [2]])
    expect(sorted([comps[0]!])).toEqual([[2, 3]])
  })

  it('handles a 20,000-node chain without recursion', () => {
    const n = 20_000
    const adj = Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : [0]))
    expect(stronglyConnected(adj)).toHaveLength(1)
  })

  it('rejects an edge to a node that does not exist', () => {
    expect(() => stronglyConnected([[3]])).toThrow(/leaves a graph of 1 nodes/)
  })

  it('agrees with pairwise reachability on random graphs', () => {
    const graph = fc.integer({ min: 1, max: 12 }).chain((n) => fc.array(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 4 }), { minLength: n, maxLength: n }))
    fc.assert(
      fc.property(graph, (adj) => {
        expect(sorted(stronglyConnected(adj))).toEqual(sorted(bruteForce(adj)))
      })
    )
  })
})

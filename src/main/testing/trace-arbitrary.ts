/**
 * fast-check arbitraries for access traces (tests only): points with strided, nested, random
 * and mostly-strided address patterns, interleaved as a loop body or at random.
 */
import fc from 'fast-check'

export interface Trace {
  points: number[]
  addresses: number[]
  sizes: number[]
  pointCount: number
}

/** A point's address generator: strided, nested, random or constant. */
const pattern = fc.oneof(
  fc.record({ kind: fc.constant('strided' as const), base: fc.integer({ min: 0, max: 2 ** 47 }), stride: fc.integer({ min: -4096, max: 4096 }) }),
  fc.record({
    kind: fc.constant('nested' as const),
    base: fc.integer({ min: 0, max: 2 ** 40 }),
    inner: fc.integer({ min: 1, max: 9 }),
    stride: fc.constantFrom(1, 4, 8, 16),
    outer: fc.integer({ min: -100000, max: 100000 })
  }),
  fc.record({ kind: fc.constant('random' as const), base: fc.integer({ min: 0, max: 2 ** 47 }), span: fc.integer({ min: 1, max: 2 ** 24 }) }),
  fc.record({ kind: fc.constant('mostly' as const), base: fc.integer({ min: 0, max: 2 ** 30 }), stride: fc.constantFrom(4, 8), every: fc.integer({ min: 2, max: 20 }) })
)

/** A point's `k`th address under `pat` (`next`: the trace's random numbers). */
function addressOf(pat: typeof pattern extends fc.Arbitrary<infer P> ? P : never, k: number, next: () => number): number {
  let a: number
  switch (pat.kind) {
    case 'strided': a = pat.base + k * pat.stride; break
    case 'nested': a = pat.base + Math.floor(k / pat.inner) * pat.outer + (k % pat.inner) * pat.stride; break
    case 'random': a = pat.base + (next() % pat.span); break
    case 'mostly': a = k % pat.every === 0 ? pat.base + (next() % 4096) : pat.base + k * pat.stride; break
  }
  return Math.max(0, a)
}

export const traceArb = fc
  .record({
    patterns: fc.array(pattern, { minLength: 1, maxLength: 6 }),
    body: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
    interleave: fc.oneof(fc.constant('loop' as const), fc.constant('random' as const)),
    count: fc.integer({ min: 0, max: 3000 }),
    sizes: fc.array(fc.constantFrom(1, 2, 4, 8, 16), { minLength: 1, maxLength: 3 }),
    seed: fc.integer()
  })
  .map(({ patterns, body, interleave, count, sizes, seed }): Trace => {
    let rnd = seed >>> 0
    const next = () => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0)
    const n = patterns.length
    const seen = new Array<number>(n).fill(0)
    const t: Trace = { points: [], addresses: [], sizes: [], pointCount: n }
    for (let i = 0; i < count; i++) {
      const p = interleave === 'loop' ? body[i % body.length]! % n : next() % n
      const k = seen[p]!++
      t.points.push(p)
      t.addresses.push(addressOf(patterns[p]!, k, next))
      t.sizes.push(sizes[next() % sizes.length]!)
    }
    return t
  })

/**
 * A program's order of access points as loops: straight-line points, or parts repeated
 * `repeats` times, the last time left after `exit` symbols (SIGMA's exit). Nests up to four
 * deep, bodies from one point to past FOLD_MAX_BODY (32), points repeated inside a body.
 */
type LoopNode = { points: number[] } | { parts: LoopNode[]; repeats: number; exit: number }

const loopNodeArb: fc.Arbitrary<LoopNode> = fc.letrec<{ node: LoopNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.record({ points: fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 40 }) }),
    fc.record({ parts: fc.array(tie('node'), { minLength: 1, maxLength: 3 }), repeats: fc.integer({ min: 1, max: 70 }), exit: fc.nat({ max: 40 }) })
  )
})).node

function expandLoops(node: LoopNode, out: number[], limit: number): void {
  if ('points' in node) {
    for (const p of node.points) if (out.length < limit) out.push(p)
    return
  }
  for (let r = 0; r < node.repeats && out.length < limit; r++) for (const part of node.parts) expandLoops(part, out, limit)
  // The exit: the first symbols of one more iteration.
  const once: number[] = []
  for (const part of node.parts) expandLoops(part, once, node.exit)
  for (const p of once) if (out.length < limit) out.push(p)
}

/** Point orders of loop programs (at most `limit` accesses), points below `pointCount`. */
export const loopOrderArb = (limit = 6000): fc.Arbitrary<{ order: number[]; pointCount: number }> =>
  fc.record({ program: fc.array(loopNodeArb, { minLength: 1, maxLength: 4 }), pointCount: fc.integer({ min: 1, max: 41 }) }).map(({ program, pointCount }) => {
    const order: number[] = []
    for (const node of program) expandLoops(node, order, limit)
    return { order: order.map((p) => p % pointCount), pointCount }
  })

/** Traces whose order is a loop program's, each point's addresses from one pattern. */
export const loopTraceArb = fc
  .record({ loops: loopOrderArb(), patterns: fc.array(pattern, { minLength: 41, maxLength: 41 }), size: fc.constantFrom(1, 4, 8), seed: fc.integer() })
  .map(({ loops, patterns, size, seed }): Trace => {
    let rnd = seed >>> 0
    const next = () => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0)
    const seen = new Array<number>(loops.pointCount).fill(0)
    return {
      points: loops.order,
      addresses: loops.order.map((p) => addressOf(patterns[p]!, seen[p]!++, next)),
      sizes: loops.order.map((p) => (p === 3 ? 2 : size)),
      pointCount: loops.pointCount
    }
  })

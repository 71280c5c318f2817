/**
 * A loop nest's recorded accesses in another iteration order: interchange or tiling of a
 * two-level perfect affine nest, planned from the addresses alone. Pure over typed arrays.
 *
 * The rules, stated once:
 * - The input is one *run*: consecutive recorded accesses of the nest's points (nothing else
 *   executed in between). A run may hold several *instances* of the nest, one after another
 *   (an enclosing loop with no accesses of its own). Accesses before the first body access
 *   and after the last (a loop-invariant load hoisted out of the nest) stay in place.
 * - Body: the points accessed once per inner iteration, in one fixed order (the first
 *   repetition of a point ends the first iteration). A point accessed fewer times is outside
 *   the inner loop: the nest is not perfect and is refused.
 * - Rows (the inner loop's runs): an iteration vector holds the body's addresses; a reference
 *   *breaks* where its step differs from its first step. The inner trip count n1 is the row
 *   length, among those the references' first breaks suggest, under which most references
 *   break only at row ends; none fitting means rows of different lengths (refused). Instances
 *   end where the step between two rows' first iterations differs from the first such step
 *   (the outer trip count n2); every instance must have n2 rows.
 * - Affine, verified on every recorded access: in instance q, address(r, o, i) =
 *   base(q, r) + o * S2(r) + i * S1(r), with S1, S2 the same in every instance.
 * - Dependences the recorded addresses show: two accesses of one address, one of them a
 *   write, whose order the new iteration order reverses. Then the plan is refused.
 * - The new order: interchange runs (i, o) for (o, i); tiling with tiles of B runs tiles of B
 *   outer x B inner iterations, tiles in (outer, inner) order and each tile in (o, i) order
 *   (strip-mine both, then interchange the inner tile loop outward). The body's order of
 *   references is kept. The accesses emitted are the recorded ones (affine, so each equals
 *   base + o*S2 + i*S1 of its reference), each with its recorded size and point.
 */

export type NestOrder = { kind: 'interchange' } | { kind: 'tile'; tile: number }

export interface NestRun {
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  count: number
}

export interface NestShape {
  /** Points of one inner iteration, in body order. */
  body: number[]
  /** Inner trip count, outer trip count, instances in the run. */
  inner: number
  outer: number
  instances: number
}

export interface NestPlan {
  shape: NestShape
  /** Index into the run of each access, in the new order. */
  order: Uint32Array
}

/** Why a run cannot be transformed: one line, in the user's terms. */
export class NestRefusal extends Error {}

/** Names a point for a refusal (its reference id and expression). */
export type PointName = (point: number) => string

export function planNest(run: NestRun, isWrite: (point: number) => boolean, order: NestOrder, name: PointName): NestPlan {
  // Accesses before the first body access and after the last (a loop-invariant load hoisted
  // before the nest but on its lines) stay where they are.
  const { lo, hi } = bodySpan(run)
  const body = { count: hi - lo, points: run.points.subarray(lo, hi), addresses: run.addresses.subarray(lo, hi), sizes: run.sizes.subarray(lo, hi) }
  const shape = nestShape(body, name)
  checkDependences(body, shape, isWrite, order, name)
  const reordered = newOrder(shape, order)
  const out = new Uint32Array(run.count)
  for (let k = 0; k < run.count; k++) out[k] = k
  for (let k = 0; k < reordered.length; k++) out[lo + k] = lo + reordered[k]!
  return { shape, order: out }
}

/** Accesses per point (points are small dense indexes). */
function pointCounts(run: NestRun): Float64Array {
  let top = 0
  for (let k = 0; k < run.count; k++) top = Math.max(top, run.points[k]!)
  const perPoint = new Float64Array(top + 1)
  for (let k = 0; k < run.count; k++) perPoint[run.points[k]!]!++
  return perPoint
}

/** From the first to past the last access of a body point (one accessed most often). */
function bodySpan(run: NestRun): { lo: number; hi: number } {
  const perPoint = pointCounts(run)
  let most = 0
  for (const c of perPoint) most = Math.max(most, c)
  let lo = 0
  while (lo < run.count && perPoint[run.points[lo]!] !== most) lo++
  let hi = run.count
  while (hi > lo && perPoint[run.points[hi - 1]!] !== most) hi--
  return { lo, hi }
}

/** The run's body, trip counts and instances, verified affine on every access; throws NestRefusal. */
export function nestShape(run: NestRun, name: PointName): NestShape {
  const { points, addresses, count } = run
  // Per point, typed: a nest run is millions of accesses of a few points.
  const perPoint = pointCounts(run)
  const top = perPoint.length - 1
  const counts = new Map<number, number>()
  perPoint.forEach((c, p) => {
    if (c > 0) counts.set(p, c)
  })
  const most = Math.max(...counts.values())
  const outside = [...counts].filter(([, c]) => c < most)
  const body: number[] = []
  for (let k = 0; k < count && body.length < counts.size; k++) {
    const p = points[k]!
    if (counts.get(p) !== most) continue
    if (body.includes(p)) break
    body.push(p)
  }
  const m = body.length
  // The body's accesses as iteration vectors: vec[t * m + r].
  const iterations = most
  const vec = new Float64Array(iterations * m)
  const slot = new Int32Array(top + 1).fill(-1)
  body.forEach((p, r) => (slot[p] = r))
  let t = 0
  let r = 0
  for (let k = 0; k < count; k++) {
    const s = slot[points[k]!]!
    if (s < 0) continue
    if (s !== r) throw new NestRefusal(`its references do not come in one order each inner iteration (${name(points[k]!)} where ${name(body[r]!)} was expected: a branch or a call inside the nest), so it is not a perfect nest`)
    vec[t * m + r] = addresses[k]!
    if (++r === m) {
      r = 0
      t++
    }
  }
  if (iterations < 2) throw new NestRefusal('the nest ran one iteration only; there is nothing to reorder')

  // Rows: per reference, the steps that differ from its first step.
  const breaks: number[][] = body.map(() => [])
  for (let q = 0; q < m; q++) {
    const first = vec[m + q]! - vec[q]!
    for (let s = 0; s + 1 < iterations; s++) if (vec[(s + 1) * m + q]! - vec[s * m + q]! !== first) breaks[q]!.push(s)
  }
  // The inner trip count: of the lengths the references' first breaks suggest, the one under
  // which most references break only at row ends (the smallest on a tie). An indirect index
  // breaks anywhere and marks nothing; the affine check below names it.
  const withBreaks = breaks.filter((b) => b.length > 0)
  if (withBreaks.length === 0) throw new NestRefusal("every reference advances by one stride across the whole nest, so the recorded addresses do not show where the inner loop's iterations end")
  const candidates = [...new Set(withBreaks.map((b) => b[0]! + 1))].sort((a, b) => a - b)
  const regularUnder = (c: number) => withBreaks.filter((b) => b.every((s) => s % c === c - 1)).length
  let inner = 0
  let best = 0
  for (const c of candidates) {
    const score = regularUnder(c)
    if (score > best) {
      best = score
      inner = c
    }
  }
  if (best === 0) {
    // No row length fits any reference: rows of different lengths.
    const q = breaks.findIndex((b) => b.length > 0)
    const ends = breaks[q]!
    let k = 1
    while (k < ends.length && ends[k]! - ends[k - 1]! === ends[0]! + 1) k++
    const then = k < ends.length ? ends[k]! - ends[k - 1]! : iterations - 1 - ends[ends.length - 1]!
    throw new NestRefusal(`the inner loop's trip count varies (${ends[0]! + 1} iterations, then ${then}, as ${name(body[q]!)}'s addresses show): a data-dependent bound`)
  }
  if (iterations % inner !== 0) throw new NestRefusal(`the inner loop's trip count varies (${inner} iterations, then ${iterations % inner} in the last row)`)
  const rows = iterations / inner
  if (outside.length > 0) {
    const [p, c] = outside[0]!
    throw new NestRefusal(`${name(p)} is accessed ${c} times, not once per inner iteration (${most}): it is outside the inner loop, so the nest is not perfect`)
  }

  // Instances: the step between rows' first iterations changes where one ends.
  let outer = rows
  for (let o = 1; o + 1 < rows && outer === rows; o++) {
    for (let q = 0; q < m; q++) {
      const step0 = vec[inner * m + q]! - vec[q]!
      if (vec[(o + 1) * inner * m + q]! - vec[o * inner * m + q]! !== step0) {
        outer = o + 1
        break
      }
    }
  }
  if (rows % outer !== 0) throw new NestRefusal(`the outer loop's trip count varies (${outer} iterations, then ${rows % outer})`)
  const instances = rows / outer
  if (outer < 2 && inner < 2) throw new NestRefusal('the nest ran one iteration per instance; there is nothing to reorder')

  // Affine on every recorded access, with one S1 and S2 per reference.
  for (let q = 0; q < m; q++) {
    const s1 = inner > 1 ? vec[m + q]! - vec[q]! : 0
    const s2 = outer > 1 ? vec[inner * m + q]! - vec[q]! : 0
    for (let n = 0; n < instances; n++) {
      const start = n * outer * inner
      const base = vec[start * m + q]!
      for (let o = 0; o < outer; o++)
        for (let i = 0; i < inner; i++) {
          const at = vec[(start + o * inner + i) * m + q]!
          if (at !== base + o * s2 + i * s1)
            throw new NestRefusal(
              `${name(body[q]!)} is not affine in the loop indices (outer iteration ${o}, inner ${i}${instances > 1 ? ` of instance ${n + 1}` : ''}: 0x${at.toString(16)}, not base + ${o}×${s2} + ${i}×${s1}): an indirect index or a data-dependent address`
            )
        }
    }
  }
  return { body, inner, outer, instances }
}

/** Position of iteration (o, i) of one instance in the new order. */
function rank(order: NestOrder, shape: NestShape): (o: number, i: number) => number {
  const { inner, outer } = shape
  if (order.kind === 'interchange') return (o, i) => i * outer + o
  const b = order.tile
  // Tiles in (outer, inner) order; a tile holds up to b x b iterations.
  return (o, i) => {
    const to = Math.floor(o / b)
    const ti = Math.floor(i / b)
    const rowsInTile = Math.min(b, outer - to * b)
    const colsInTile = Math.min(b, inner - ti * b)
    return to * b * inner + ti * b * rowsInTile + (o - to * b) * colsInTile + (i - ti * b)
  }
}

/**
 * Refuses when two accesses of one address, one a write, would run in the other order: per
 * address written in an instance, in recorded order, every write must stay after every access
 * before it and before every access after it (prefix maxima and suffix minima of the new ranks).
 */
function checkDependences(run: NestRun, shape: NestShape, isWrite: (point: number) => boolean, order: NestOrder, name: PointName): void {
  const { body, inner, outer, instances } = shape
  const m = body.length
  const writes = body.map(isWrite)
  if (!writes.some((w) => w)) return
  const at = rank(order, shape)
  const perInstance = inner * outer * m
  // New position of the access k of an instance: its iteration's rank, then its body slot.
  const newPos = (k: number) => {
    const t = Math.floor(k / m)
    return at(Math.floor(t / inner), t % inner) * m + (k % m)
  }
  for (let n = 0; n < instances; n++) {
    const base = n * perInstance
    // Only addresses the instance writes can carry a dependence: group their accesses, in
    // recorded order (a Set and a Map over those; every other access is one Set lookup).
    const written = new Set<number>()
    for (let k = 0; k < perInstance; k++) if (writes[k % m]) written.add(run.addresses[base + k]!)
    const groups = new Map<number, number[]>()
    for (let k = 0; k < perInstance; k++) {
      const a = run.addresses[base + k]!
      if (!written.has(a)) continue
      const g = groups.get(a)
      if (g) g.push(k)
      else groups.set(a, [k])
    }
    for (const [address, group] of groups) {
      if (group.length < 2) continue
      const pos = group.map(newPos)
      const suffixMin = new Array<number>(pos.length + 1).fill(Infinity)
      for (let k = pos.length - 1; k >= 0; k--) suffixMin[k] = Math.min(suffixMin[k + 1]!, pos[k]!)
      let prefixMax = -Infinity
      for (let k = 0; k < pos.length; k++) {
        if (writes[group[k]! % m] && (prefixMax > pos[k]! || suffixMin[k + 1]! < pos[k]!)) {
          // The access that would cross it: an earlier one now after it, or a later one now before.
          const other = group.findIndex((_, j) => (j < k && pos[j]! > pos[k]!) || (j > k && pos[j]! < pos[k]!))
          const iteration = (a: number) => {
            const t = Math.floor(a / m)
            return `(outer ${Math.floor(t / inner) + 1}, inner ${(t % inner) + 1})`
          }
          const what = name(body[group[k]! % m]!)
          const by = name(body[group[other]! % m]!)
          throw new NestRefusal(
            `it would reverse a dependence the recorded addresses show: ${what} writes 0x${address.toString(16)} at iteration ${iteration(group[k]!)}, which ${by} accesses at iteration ${iteration(group[other]!)}, ${other < k ? 'before' : 'after'} it now and ${other < k ? 'after' : 'before'} it then`
          )
        }
        prefixMax = Math.max(prefixMax, pos[k]!)
      }
    }
  }
}

/** Index into the run of each access in the new order. */
function newOrder(shape: NestShape, order: NestOrder): Uint32Array {
  const { body, inner, outer, instances } = shape
  const m = body.length
  const perInstance = inner * outer * m
  const out = new Uint32Array(perInstance * instances)
  const at = rank(order, shape)
  for (let n = 0; n < instances; n++)
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++) {
        const from = n * perInstance + (o * inner + i) * m
        const to = n * perInstance + at(o, i) * m
        for (let r = 0; r < m; r++) out[to + r] = from + r
      }
  return out
}

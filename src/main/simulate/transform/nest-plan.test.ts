import { describe, expect, it } from 'vitest'
import { NestRefusal, nestShape, planNest, type NestOrder, type NestRun } from './nest-plan'

/** A run from a body of references, each `address(o, i)`, over instances x outer x inner iterations. */
function nestRun(refs: Array<(o: number, i: number, n: number) => number>, outer: number, inner: number, instances = 1): NestRun {
  const count = refs.length * outer * inner * instances
  const run = { count, points: new Uint32Array(count), addresses: new Float64Array(count), sizes: new Uint16Array(count).fill(8) }
  let k = 0
  for (let n = 0; n < instances; n++)
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++)
        refs.forEach((f, r) => {
          run.points[k] = r
          run.addresses[k++] = f(o, i, n)
        })
  return run
}

const name = (p: number) => `ref${p}`
const never = () => false
/** The (o, i) of each iteration of the plan's order, for a run whose ref 0 encodes them as o * 1000 + i. */
function iterations(run: NestRun, order: NestOrder): Array<[number, number]> {
  const plan = planNest(run, never, order, name)
  const m = plan.shape.body.length
  const out: Array<[number, number]> = []
  for (let k = 0; k < plan.order.length; k += m) {
    const a = run.addresses[plan.order[k]!]!
    out.push([Math.floor(a / 1000), a % 1000])
  }
  return out
}

describe('nestShape', () => {
  it('finds the body, the trip counts and back-to-back instances of a 3-deep nest', () => {
    // matmul ijk: a[i][k], b[k][j], c[i][j] over (j, k) per i.
    const n = 5
    const run = nestRun([(j, k, i) => 1e6 + (i * n + k) * 8, (j, k) => 2e6 + (k * n + j) * 8, (j, _k, i) => 3e6 + (i * n + j) * 8], n, n, n)
    expect(nestShape(run, name)).toEqual({ body: [0, 1, 2], inner: n, outer: n, instances: n })
  })

  it('refuses an indirect index, naming the reference', () => {
    const perm = [3, 0, 4, 1, 2, 6, 5, 7]
    const run = nestRun([(o, i) => 1e6 + i * 4, (o, i) => 2e6 + (o * 8 + perm[i]!) * 8], 6, 8)
    expect(() => nestShape(run, name)).toThrow(/ref1 is not affine/)
  })

  it('refuses a gather whose index wraps now and then (breaks on a third of its steps), naming it', () => {
    const n = 64
    const run = nestRun([(o, i) => 1e6 + i * 4, (o, i) => 2e6 + (o * n + ((i * 23) % n)) * 8], 8, n)
    expect(() => nestShape(run, name)).toThrow(/ref1 is not affine in the loop indices/)
  })

  it('refuses an inner trip count that varies (a data-dependent bound)', () => {
    const lens = [5, 5, 3, 5]
    const count = lens.reduce((a, b) => a + b, 0)
    const run = { count, points: new Uint32Array(count), addresses: new Float64Array(count), sizes: new Uint16Array(count) }
    let k = 0
    lens.forEach((len, o) => {
      for (let i = 0; i < len; i++) run.addresses[k++] = 1e6 + i * 4096 + o * 8
    })
    expect(() => nestShape(run, name)).toThrow(/trip count varies \(5 iterations, then 3/)
  })

  it('refuses a reference outside the inner loop (an imperfect nest)', () => {
    const run = nestRun([(o, i) => 1e6 + o * 64 + i * 8], 4, 4)
    // Insert an access of point 9 before each row.
    const points: number[] = []
    const addresses: number[] = []
    for (let k = 0; k < run.count; k++) {
      if (k % 4 === 0) {
        points.push(9)
        addresses.push(5e6 + k)
      }
      points.push(run.points[k]!)
      addresses.push(run.addresses[k]!)
    }
    const imperfect = { count: points.length, points: Uint32Array.from(points), addresses: Float64Array.from(addresses), sizes: new Uint16Array(points.length) }
    expect(() => nestShape(imperfect, name)).toThrow(/ref9 is accessed 4 times, not once per inner iteration \(16\)/)
  })

  it('refuses a nest whose addresses do not show where rows end', () => {
    const run = nestRun([(o, i) => 1e6 + (o * 16 + i) * 8], 4, 16)
    expect(() => nestShape(run, name)).toThrow(NestRefusal)
    expect(() => nestShape(run, name)).toThrow(/do not show where the inner loop's iterations end/)
  })

  it('refuses references that do not come in one order', () => {
    const run = nestRun([(o, i) => 1e6 + o * 64 + i * 8, (o, i) => 2e6 + i * 64 + o * 8], 3, 3)
    ;[run.points[2], run.points[3]] = [run.points[3]!, run.points[2]!]
    expect(() => nestShape(run, name)).toThrow(/not a perfect nest/)
  })
})

describe('planNest', () => {
  const grid = (outer: number, inner: number) => nestRun([(o, i) => o * 1000 + i, (o, i) => 5e6 + i * 4096 + o * 8], outer, inner)

  it('interchange runs the inner loop outermost', () => {
    expect(iterations(grid(2, 3), { kind: 'interchange' })).toEqual([
      [0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]
    ])
  })

  it('tiling runs tiles of B x B in (outer, inner) order, partial tiles at the edges', () => {
    expect(iterations(grid(3, 3), { kind: 'tile', tile: 2 })).toEqual([
      [0, 0], [0, 1], [1, 0], [1, 1], [0, 2], [1, 2], [2, 0], [2, 1], [2, 2]
    ])
  })

  it('keeps each iteration\'s accesses together and in body order, every access once', () => {
    const run = grid(4, 5)
    const plan = planNest(run, never, { kind: 'tile', tile: 3 }, name)
    expect([...plan.order].sort((a, b) => a - b)).toEqual([...Array(run.count).keys()])
    for (let k = 0; k < plan.order.length; k += 2) expect(plan.order[k + 1]).toBe(plan.order[k]! + 1)
  })

  it('keeps a hoisted load before the nest (on its lines, accessed once) in place', () => {
    const run = grid(2, 2)
    const count = run.count + 1
    const withLoad = { count, points: Uint32Array.from([7, ...run.points]), addresses: Float64Array.from([9e6, ...run.addresses]), sizes: new Uint16Array(count) }
    const plan = planNest(withLoad, never, { kind: 'interchange' }, name)
    expect(plan.order[0]).toBe(0)
    expect(Array.from(plan.order.subarray(1), (k) => withLoad.addresses[k])).toEqual([0, 5e6, 1000, 5e6 + 8, 1, 5e6 + 4096, 1001, 5e6 + 4096 + 8])
  })

  it('refuses an interchange that reverses a recorded dependence, allows one it keeps', () => {
    // a[o+1][i] = a[o][i+1]: the write at (o, i) is read at (o + 1, i - 1): distance (1, -1).
    const el = (o: number, i: number) => 1e6 + (o * 64 + i) * 8
    const run = nestRun([(o, i) => el(o, i + 1), (o, i) => el(o + 1, i)], 4, 4)
    const writes = (p: number) => p === 1
    expect(() => planNest(run, writes, { kind: 'interchange' }, name)).toThrow(/reverse a dependence the recorded addresses show: ref1 writes 0x[0-9a-f]+ at iteration \(outer 1, inner 2\), which ref0 accesses at iteration \(outer 2, inner 1\), after it now and before it then/)
    // a[o+1][i] = a[o][i]: distance (1, 0) stays forward under interchange.
    const kept = nestRun([(o, i) => el(o, i), (o, i) => el(o + 1, i)], 4, 4)
    expect(planNest(kept, writes, { kind: 'interchange' }, name).order.length).toBe(kept.count)
  })
})

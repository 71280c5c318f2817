import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Correlator, dominantVariable } from './correlator'

const READ = 0
const WRITE = 1

function layout() {
  return {
    globals: [{ name: 'G', start: 0x4000, size: 0x800 }],
    functions: [{ name: 'scale', start: 0x1100 }],
    variables: {
      globals: { G: { type: 'double [256]', size: 2048, elementSize: 8, dims: [256] } },
      frames: { scale: [{ name: 'local', offset: -528, size: 512, type: 'double [64]', elementSize: 8, dims: [64] }] }
    },
    relocatable: true
  }
}

describe('Correlator', () => {
  it('places globals and frame entries at the load base, and attributes by address', () => {
    const c = new Correlator(layout())
    expect(c.wantsInstructions).toBe(true)
    c.programLoaded(0x100000)
    expect(c.attribute(0, READ, 0x104008)).toBe(1) // G
    // call scale: the push of the return address, then scale's first instruction.
    const sp = 0x7ff000
    c.observe(WRITE, sp, 8)
    c.instruction(0x101100)
    const local = c.attribute(1, WRITE, sp + 8 - 528)
    expect(c.finish().variables[local]!.name).toBe('local')
    // ret reads the return address: the frame is gone.
    c.observe(READ, sp, 8)
    expect(c.attribute(1, WRITE, sp + 8 - 528)).toBe(0)
  })

  it('groups heap blocks by call stack and gives reused memory to the new block', () => {
    const c = new Correlator(null)
    c.log('**1** stride-alloc m 5000 40 0 109317')
    c.log('==1==    at 0x484A11E: malloc (allocs.c:64)')
    c.log('==1==    by 0x109312: main (heap.c:62)')
    c.log('==1==    by 0x4874249: (below main) (libc-start.c:58)')
    // The tracer observes every access before attributing it; that ends the backtrace.
    c.observe(WRITE, 0x5010, 8)
    const first = c.attribute(0, WRITE, 0x5010)
    c.log('**1** stride-alloc f 5000')
    c.log('**1** stride-alloc m 5000 20 0 109400')
    c.log('==1==    at 0x484A11E: malloc (allocs.c:64)')
    c.log('==1==    by 0x1093fa: main (heap.c:66)')
    c.observe(WRITE, 0x5010, 8)
    const second = c.attribute(0, WRITE, 0x5010)
    c.attribute(0, WRITE, 0x5018)
    expect(second).not.toBe(first)
    expect(c.attribute(0, WRITE, 0x5030)).toBe(0) // beyond the new, smaller block
    const { variables, histograms } = c.finish()
    expect(variables[first]).toMatchObject({ kind: 'heap', context: [0x109317, 0x4874249] })
    expect(variables[second]).toMatchObject({ kind: 'heap', context: [0x109400], writes: 2 })
    expect(c.allocEvents).toBe(3)
    expect(dominantVariable(histograms.get(0))).toBe(second) // 2 of point 0's 4 accesses
  })

  it("places the program's own libraries' globals at their load base, once, prefixed where the program has the name too", () => {
    const c = new Correlator({
      ...layout(),
      libraries: [{ path: '/opt/app/libfix.so', globals: [{ name: 'table', start: 0x2000, size: 64 }, { name: 'G', start: 0x2100, size: 8 }] }]
    })
    c.programLoaded(0x100000)
    c.libraryLoaded('/usr/lib/x86_64-linux-gnu/libc.so.6', 0x7000000) // not the program's own: ignored
    c.libraryLoaded('/opt/app/libfix.so', 0x5000000)
    c.libraryLoaded('/opt/app/libfix.so', 0x6000000) // seen again (another maps snapshot): kept where it was
    const table = c.attribute(0, READ, 0x5002008)
    const libG = c.attribute(0, READ, 0x5002100)
    expect(c.attribute(0, READ, 0x104008)).toBe(1) // the program's G is untouched
    expect(c.attribute(0, READ, 0x6002008)).toBe(0)
    const { variables } = c.finish()
    expect(variables[table]).toMatchObject({ name: 'table', kind: 'global' })
    expect(variables[libG]).toMatchObject({ name: 'libfix.so:G', kind: 'global' })
  })
})


describe('Correlator.attributeBatch', () => {
  // The reference counts one access at a time, as the correlator did before runs: each
  it("keeps the frame filter current: the kept functions' entries, each thread's innermost frame", () => {
    const c = new Correlator(layout())
    expect([...c.frameFilter().entries]).toEqual([])
    c.programLoaded(0x100000)
    const { entries, top } = c.frameFilter()
    expect([...entries]).toEqual([0x101100])
    expect(top[0]).toBe(Infinity)
    c.enterFunction(0x101100, 0x7ff000, 0)
    c.enterFunction(0x101100, 0x7fe000, 3)
    expect([top[0], top[3]]).toEqual([0x7ff008, 0x7fe008])
    // A return below the frame pops nothing; at its CFA it pops it (leaveTo's rule).
    c.leaveFunction(0x7ff000, 0)
    expect(top[0]).toBe(0x7ff008)
    c.leaveFunction(0x7ff008, 0)
    expect([top[0], top[3]]).toEqual([Infinity, 0x7fe008])
    // An entry of a function without kept locals changes nothing.
    c.enterFunction(0x101200, 0x7fd000, 3)
    expect(top[3]).toBe(0x7fe008)
  })

  it("tells allocations apart past the allocator's library frames, down to the program's own", () => {
    const c = new Correlator({ ...layout(), functions: [{ name: 'scale', start: 0x1100, size: 0x100 }, { name: 'main', start: 0x1200, size: 0x200 }] })
    c.programLoaded(0x100000)
    // operator new (site) and three more frames of libstdc++, then the program's two call sites.
    const lib = [0x7000010, 0x7000020, 0x7000030, 0x7000040]
    c.allocated({ kind: 'alloc', ptr: 0x900000, size: 64, old: 0, site: lib[0]! + 1 }, [0x6000000, lib[0]!, ...lib.slice(1), 0x101210, 0x101300])
    c.allocated({ kind: 'alloc', ptr: 0x910000, size: 64, old: 0, site: lib[0]! + 1 }, [0x6000000, lib[0]!, ...lib.slice(1), 0x101250, 0x101300])
    // A site in the program: itself and three callers, as before (a fifth frame apart is the same structure).
    c.allocated({ kind: 'alloc', ptr: 0x920000, size: 64, old: 0, site: 0x101221 }, [0x6000000, 0x101220, 0x101230, 0x101240, 0x101260, 0x101270])
    c.allocated({ kind: 'alloc', ptr: 0x930000, size: 64, old: 0, site: 0x101221 }, [0x6000000, 0x101220, 0x101230, 0x101240, 0x101260, 0x101280])
    const at = (a: number) => c.attribute(0, READ, a)
    expect(new Set([at(0x900000), at(0x910000)]).size).toBe(2)
    expect(at(0x920000)).toBe(at(0x930000))
    const heap = c.finish().variables.filter((v) => v.kind === 'heap')
    expect(heap.map((v) => v.context)).toEqual([
      [0x7000011, 0x7000020, 0x7000030, 0x7000040, 0x101210, 0x101300],
      [0x7000011, 0x7000020, 0x7000030, 0x7000040, 0x101250, 0x101300],
      [0x101221, 0x101230, 0x101240, 0x101260]
    ])
  })

  it('gives one heap variable per distinct context, the same one whenever a context comes again', () => {
    const c = new Correlator(null)
    // Contexts a weak key would merge: the same frames in another order, one frame more, frames
    // differing only above 2^32, and the same digits split differently (as "1,23" and "12,3").
    const contexts = [
      [0x401000, 0x402000],
      [0x402000, 0x401000],
      [0x401000, 0x402000, 0x403000],
      [0x1_0040_1000, 0x402000],
      [0x2_0040_1000, 0x402000],
      [1, 23],
      [12, 3]
    ]
    const ids: number[] = []
    for (let round = 0; round < 3; round++)
      contexts.forEach((context, k) => {
        const ptr = 0x900000 + (round * contexts.length + k) * 0x100
        // frames[0] is the wrapper, frames[1] the site less one: the context is the site and frames[2..].
        c.allocated({ kind: 'alloc', ptr, size: 16, old: 0, site: context[0]! }, [0, context[0]! - 1, ...context.slice(1)])
        const v = c.attribute(0, READ, ptr)
        if (round === 0) ids.push(v)
        else expect(v).toBe(ids[k])
      })
    expect(new Set(ids).size).toBe(contexts.length)
    const heap = c.finish().variables.filter((v) => v.kind === 'heap')
    expect(heap.map((v) => [v.name, v.context])).toEqual(contexts.map((context, k) => [`heap_${k}`, context]))
  })

  // point's histogram created at its first access, a variable entered at its first touch
  // (the order breaks ties in dominantVariable), reads and writes by the point's kind.
  function setUp() {
    const c = new Correlator(layout())
    c.programLoaded(0x100000)
    c.allocated({ kind: 'alloc', ptr: 0x900000, size: 64, old: 0, site: 0x101200 }, [0, 0x101199])
    c.enterFunction(0x101100, 0x7ff000, 0)
    return c
  }

  function reference(accesses: Array<{ point: number; address: number; thread: number }>, kinds: number[]) {
    const c = setUp()
    const histograms = new Map<number, Map<number, number>>()
    const counts = new Map<number, { reads: number; writes: number }>()
    for (const a of accesses) {
      const v = c.attribute(a.point, kinds[a.point]!, a.address, a.thread)
      let h = histograms.get(a.point)
      if (!h) histograms.set(a.point, (h = new Map()))
      h.set(v, (h.get(v) ?? 0) + 1)
      const n = counts.get(v) ?? { reads: 0, writes: 0 }
      if (kinds[a.point] !== WRITE) n.reads++
      if (kinds[a.point] !== READ) n.writes++
      counts.set(v, n)
    }
    const variables = c.finish().variables.map((v) => ({ ...v, reads: counts.get(v.id)?.reads ?? 0, writes: counts.get(v.id)?.writes ?? 0 }))
    return { variables, histograms: [...histograms].map(([p, h]) => [p, [...h]]) }
  }

  function batched(accesses: Array<{ point: number; address: number; thread: number }>, kinds: number[]) {
    const c = setUp()
    const points = Uint32Array.from(accesses, (a) => a.point)
    const addresses = Float64Array.from(accesses, (a) => a.address)
    const threads = Uint16Array.from(accesses, (a) => a.thread)
    const half = accesses.length >> 1
    const out = new Int32Array(accesses.length).fill(-7)
    c.attributeBatch(points, addresses, threads, 0, half, Uint8Array.from(kinds), out)
    c.attributeBatch(points, addresses, threads, half, accesses.length, Uint8Array.from(kinds), out)
    const { variables, histograms } = c.finish()
    return { variables, histograms: [...histograms].map(([p, h]) => [p, [...h]]), perAccess: [...out] }
  }

  it('counts exactly as attribute() one access at a time, histogram order included', () => {
    const places = [0x104008, 0x104400, 0x900010, 0x7ff008 - 528, 0x200000, 0x104000 + 0x7f8]
    fc.assert(
      fc.property(
        fc.array(fc.record({ point: fc.nat(5), place: fc.nat(places.length - 1), thread: fc.constantFrom(0, 0, 0, 1) }), { maxLength: 300 }),
        fc.array(fc.constantFrom(READ, WRITE, 2), { minLength: 6, maxLength: 6 }),
        (picks, kinds) => {
          const accesses = picks.map((p) => ({ point: p.point, address: places[p.place]!, thread: p.thread }))
          const { perAccess, ...counts } = batched(accesses, kinds)
          expect(counts).toEqual(reference(accesses, kinds))
          // Each access's variable, as attribute() answers it one by one.
          const one = setUp()
          expect(perAccess).toEqual(accesses.map((a) => one.attribute(a.point, kinds[a.point]!, a.address, a.thread)))
        }
      )
    )
  })

  it('answers as attribute() among thousands of heap blocks that come and go under one binding', () => {
    // A C++ program's heap: 6,000 live blocks, some freed and others allocated between batches
    // (slots move under the search's sample), accesses all over them and between them.
    let seed = 12345
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed % n
    }
    const kinds = [READ, WRITE, 2, READ, READ, WRITE]
    const one = setUp()
    const batched = setUp()
    const base = 0x10000000
    const live = new Set<number>()
    const alloc = (k: number) => {
      for (const c of [one, batched]) c.allocated({ kind: 'alloc', ptr: base + k * 64, size: 16 + (k % 3) * 16, old: 0, site: 0x101200 + (k % 7) * 16 }, [0, 0x101199])
      live.add(k)
    }
    const free = (k: number) => {
      for (const c of [one, batched]) c.freed(base + k * 64)
      live.delete(k)
    }
    // One set of batch arrays, as the tracer keeps: the native loop stays bound while the
    // blocks move under it.
    const n = 3000
    const points = new Uint32Array(n)
    const addresses = new Float64Array(n)
    const threads = new Uint16Array(n)
    const out = new Int32Array(n)
    const kindOf = Uint8Array.from(kinds)
    const batch = () => {
      for (let i = 0; i < n; i++) {
        points[i] = random(6)
        addresses[i] = base + random(20000) * 64 + random(64)
      }
      out.fill(-7)
      batched.attributeBatch(points, addresses, threads, 0, n, kindOf, out)
      const expected = Array.from(points, (p, i) => one.attribute(p, kinds[p]!, addresses[i]!, 0))
      expect([...out]).toEqual(expected)
    }
    // Every other slot, then a thousand blocks at the front: every later block moves by up to
    // a thousand slots, under a sample taken before (fewer than a quarter more blocks).
    for (let k = 0; k < 12000; k += 2) alloc(k)
    batch()
    for (let k = 1; k < 2000; k += 2) alloc(k)
    batch()
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 300; i++) {
        const k = random(20000)
        if (live.has(k)) free(k)
        else alloc(k)
      }
      batch()
    }
    expect(batched.finish().variables.map((v) => [v.name, v.reads, v.writes])).toEqual(one.finish().variables.map((v) => [v.name, v.reads, v.writes]))
  })

  it('counts exactly as attribute() with blocks and frames changing between batches', () => {
    // Blocks come and go in a heap band and frames of `scale` in a stack band; accesses fall
    // on them, on G and between them. Each batch of the tracer is followed by one change, so
    // the native loop meets spans from earlier epochs that the change did or did not touch.
    const access = fc.record({
      point: fc.nat(5),
      address: fc.oneof(fc.integer({ min: 0x900000, max: 0x900400 }), fc.integer({ min: 0x7fe000 - 700, max: 0x7ff100 }), fc.integer({ min: 0x103ff0, max: 0x104810 })),
      thread: fc.constantFrom(0, 0, 0, 1)
    })
    const change = fc.oneof(
      fc.record({ op: fc.constant('alloc' as const), at: fc.integer({ min: 0x900000, max: 0x900400 }), size: fc.integer({ min: 1, max: 300 }) }),
      fc.record({ op: fc.constant('free' as const), at: fc.integer({ min: 0x900000, max: 0x900400 }) }),
      fc.record({ op: fc.constant('enter' as const), sp: fc.integer({ min: 0x7fe000, max: 0x7ff000 }), thread: fc.constantFrom(0, 1) }),
      fc.record({ op: fc.constant('leave' as const), sp: fc.integer({ min: 0x7fe000, max: 0x7ff008 }), thread: fc.constantFrom(0, 1) })
    )
    type Change = typeof change extends fc.Arbitrary<infer T> ? T : never
    const apply = (c: Correlator, o: Change) => {
      if (o.op === 'alloc') c.allocated({ kind: 'alloc', ptr: o.at, size: o.size, old: 0, site: 0x101200 + (o.at & 0x30) }, [0, 0x101199])
      else if (o.op === 'free') c.freed(o.at)
      else if (o.op === 'enter') c.enterFunction(0x101100, o.sp, o.thread)
      else c.leaveFunction(o.sp, o.thread)
    }
    // Many changes in a row too: more than the map's change log holds.
    const steps = fc.array(fc.tuple(fc.array(access, { maxLength: 30 }), fc.array(change, { minLength: 1, maxLength: 3 }), fc.boolean()), { maxLength: 40 })
    fc.assert(
      fc.property(steps, fc.array(fc.constantFrom(READ, WRITE, 2), { minLength: 6, maxLength: 6 }), (plan, kinds) => {
        const one = setUp()
        const batched = setUp()
        const kindOf = Uint8Array.from(kinds)
        for (const [accesses, changes, burst] of plan) {
          const expected = accesses.map((a) => one.attribute(a.point, kinds[a.point]!, a.address, a.thread))
          const out = new Int32Array(accesses.length).fill(-7)
          batched.attributeBatch(Uint32Array.from(accesses, (a) => a.point), Float64Array.from(accesses, (a) => a.address), Uint16Array.from(accesses, (a) => a.thread), 0, accesses.length, kindOf, out)
          expect([...out]).toEqual(expected)
          for (let r = burst ? 30 : 1; r > 0; r--)
            for (const o of changes) {
              apply(one, o)
              apply(batched, o)
            }
        }
        const a = one.finish()
        const b = batched.finish()
        expect(b.variables).toEqual(a.variables)
        expect([...b.histograms].map(([p, h]) => [p, [...h]])).toEqual([...a.histograms].map(([p, h]) => [p, [...h]]))
      }),
      { numRuns: 300 }
    )
  })

  it('keeps a point whose runs alternate between variables in first-touched order', () => {
    const c = new Correlator(layout())
    c.programLoaded(0x100000)
    c.allocated({ kind: 'alloc', ptr: 0x900000, size: 64, old: 0, site: 0x101200 }, [0, 0x101199])
    const addresses = Float64Array.of(0x900000, 0x900000, 0x104008, 0x900000, 0x104008, 0x104008)
    c.attributeBatch(new Uint32Array(6), addresses, new Uint16Array(6), 0, 6, Uint8Array.of(READ), new Int32Array(6))
    const { variables, histograms } = c.finish()
    const h = [...histograms.get(0)!]
    expect(h.map(([v, n]) => [variables[v]!.kind, n])).toEqual([
      ['heap', 3],
      ['global', 3]
    ])
    // A tie: the first variable touched wins, as when counted one by one.
    expect(variables[dominantVariable(histograms.get(0))]!.kind).toBe('heap')
    expect(variables.find((v) => v.kind === 'global')!.reads).toBe(3)
  })
})

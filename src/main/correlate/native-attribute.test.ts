import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { NativeAttribution, type Runs } from './native-attribute'
import { AddressMap, CHANGE_LOG, FrameTable, LocalTable, MapState, type Spans } from './address-map'
import { PointCounts } from './point-counts'

const loop = new NativeAttribution()
const countAnswered = (points: Uint32Array, addresses: Float64Array, from: number, to: number, spans: Spans, kindOf: Uint8Array, runs: Runs, threads = new Uint16Array(points.length), counts = new PointCounts()) =>
  loop.countAnswered(points, addresses, threads, new Int32Array(points.length), from, to, spans, kindOf, runs, counts)

/** A table's cells in the order they were made: [point, variable, kind, count]. */
function cells(counts: PointCounts): number[][] {
  const out: number[][] = []
  counts.drain((point, variable, kind, n) => out.push([point, variable, kind, n]))
  return out
}

/** The map's state with no last answer, no frames, no globals and no heap blocks, in thread 0 (the one stack). */
function mapState(): Float64Array {
  const state = new Float64Array(MapState.length)
  state[MapState.lastStart] = state[MapState.framesLow] = state[MapState.globalsLow] = Infinity
  state[MapState.lastEnd] = state[MapState.framesHigh] = state[MapState.globalsHigh] = -Infinity
  return state
}

/** Two points with spans [0x1000, 0x2000) -> variable 3 and [0x8000, 0x9000) -> variable 0 (a gap), both current. */
function state() {
  const changeLow = new Float64Array(CHANGE_LOG)
  const changeHigh = new Float64Array(CHANGE_LOG)
  const spans = {
    epoch: 5,
    epochs: Float64Array.of(5, 5),
    low: Float64Array.of(0x1000, 0x8000),
    high: Float64Array.of(0x2000, 0x9000),
    variable: Int32Array.of(3, 0),
    changeLow,
    changeHigh,
    heapStart: new Float64Array(4),
    heapEnd: new Float64Array(4),
    heapVariable: new Int32Array(4),
    state: mapState(),
    frames: new Float64Array(4 * FrameTable.fields),
    locals: new Float64Array(4 * LocalTable.fields)
  }
  const runs = { variable: Int32Array.of(3, 0), kind: Uint8Array.of(1, 2), count: Float64Array.of(10, 0) }
  return { spans, runs, kindOf: Uint8Array.of(1, 2) }
}

/** state() with the globals' hull over every address: a miss of a span stops the loop (a global may hold it). */
function framed() {
  const s = state()
  s.spans.state[MapState.globalsLow] = -Infinity
  s.spans.state[MapState.globalsHigh] = Infinity
  return s
}

/** The thread's frames, outermost first, each with its locals [start, end, variable] sorted by start (as AddressMap tables them). */
function withFrames(s: ReturnType<typeof state>, frames: Array<Array<[number, number, number]>>) {
  s.spans.frames = new Float64Array(frames.length * FrameTable.fields)
  s.spans.locals = new Float64Array(frames.flat().length * LocalTable.fields)
  let low = Infinity
  let high = -Infinity
  let first = 0
  frames.forEach((locals, d) => {
    const ownLow = Math.min(...locals.map((l) => l[0]))
    const ownHigh = Math.max(...locals.map((l) => l[1]))
    low = Math.min(low, ownLow)
    high = Math.max(high, ownHigh)
    s.spans.frames.set([low, high, ownLow, ownHigh, first, locals.length], d * FrameTable.fields)
    for (const l of locals) s.spans.locals.set(l, first++ * LocalTable.fields)
  })
  s.spans.state[MapState.framesLow] = low
  s.spans.state[MapState.framesHigh] = high
  s.spans.state[MapState.framesDepth] = frames.length
  return s
}

describe('the native attribution loop', () => {
  it('counts the accesses whose span and run go on, and stops at the first that does not', () => {
    const { spans, runs, kindOf } = framed()
    const points = Uint32Array.of(0, 1, 0, 0, 1, 0)
    const addresses = Float64Array.of(0x1000, 0x8ff8, 0x1ff8, 0x2000 /* past the span */, 0x8000, 0x1000)
    expect(countAnswered(points, addresses, 0, 6, spans, kindOf, runs)).toBe(3)
    expect([...runs.count]).toEqual([12, 1])
    // Going on from the one after it: the rest are answered.
    expect(countAnswered(points, addresses, 4, 6, spans, kindOf, runs)).toBe(6)
    expect([...runs.count]).toEqual([13, 2])
  })

  it("leaves to the correlator a stale span, a point's first access, a new point, and NaN", () => {
    const cases: Array<(s: ReturnType<typeof state>) => void> = [
      (s) => {
        // The ranges changed since, within the span (a block allocated in it).
        s.spans.epoch = 6
        s.spans.changeLow[6] = 0x17f0
        s.spans.changeHigh[6] = 0x1810
      },
      (s) => (s.runs.variable[0] = -1), // the point has had no run (its histogram's place is the correlator's)
      (s) => (s.runs.variable = new Int32Array(0)) // a point the runs do not have yet
    ]
    for (const change of cases) {
      const s = framed()
      change(s)
      expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x1800), 0, 1, s.spans, s.kindOf, s.runs)).toBe(0)
    }
    const s = framed()
    expect(countAnswered(Uint32Array.of(0, 2), Float64Array.of(NaN, 0x1800), 0, 2, s.spans, s.kindOf, s.runs)).toBe(0)
    expect(countAnswered(Uint32Array.of(0, 2), Float64Array.of(0x1800, 0x1800), 0, 2, s.spans, s.kindOf, s.runs)).toBe(1)
  })

  it('brings a span up to date when none of the changes since touched it, as the address map does', () => {
    const s = framed()
    // Changes 6..8 elsewhere: one ends where the span starts, one starts where it ends, one is empty.
    s.spans.epoch = 8
    s.spans.changeLow.set([0x800, 0x2000, Infinity], 6)
    s.spans.changeHigh.set([0x1000, 0x3000, -Infinity], 6)
    expect(countAnswered(Uint32Array.of(0, 0), Float64Array.of(0x1800, 0x1808), 0, 2, s.spans, s.kindOf, s.runs)).toBe(2)
    expect(s.spans.epochs[0]).toBe(8)
    expect(s.spans.epochs[1]).toBe(5) // not met: left as it was
    // A change over everything (globals placed) touches every span.
    s.spans.epoch = 9
    s.spans.changeLow[9] = -Infinity
    s.spans.changeHigh[9] = Infinity
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x1800), 0, 1, s.spans, s.kindOf, s.runs)).toBe(0)
    // A change over the span's last byte only touches it.
    const edge = framed()
    edge.spans.epoch = 6
    edge.spans.changeLow[6] = 0x1fff
    edge.spans.changeHigh[6] = 0x2000
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x1800), 0, 1, edge.spans, edge.kindOf, edge.runs)).toBe(0)
    // More changes since than the log holds: not known, left to the correlator.
    const old = framed()
    old.spans.epoch = 5 + CHANGE_LOG
    old.spans.changeLow.fill(0)
    old.spans.changeHigh.fill(0)
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x1800), 0, 1, old.spans, old.kindOf, old.runs)).toBe(0)
    old.spans.epoch = 4 + CHANGE_LOG
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x1800), 0, 1, old.spans, old.kindOf, old.runs)).toBe(1)
  })

  it('refuses a change log whose length is not a power of two', () => {
    const s = state()
    s.spans.changeLow = new Float64Array(3)
    s.spans.changeHigh = new Float64Array(3)
    expect(() => new NativeAttribution().countAnswered(Uint32Array.of(0), Float64Array.of(0x1000), Uint16Array.of(0), new Int32Array(1), 0, 1, s.spans, s.kindOf, s.runs, new PointCounts())).toThrow(/power-of-two/)
    const counts = new PointCounts()
    counts.slots = new Int32Array(1000)
    expect(() => new NativeAttribution().countAnswered(Uint32Array.of(0), Float64Array.of(0x1000), Uint16Array.of(0), new Int32Array(1), 0, 1, state().spans, s.kindOf, s.runs, counts)).toThrow(/power-of-two/)
  })

  it('binds its arrays again when one is replaced, and reads the new one', () => {
    const fresh = new NativeAttribution()
    const { spans, runs, kindOf } = state()
    // Inside the globals' hull: a miss of the span stops the loop.
    spans.state[MapState.globalsLow] = 0
    spans.state[MapState.globalsHigh] = Infinity
    const points = Uint32Array.of(0, 0)
    const threads = Uint16Array.of(0, 0)
    const out = new Int32Array(2)
    const counts = new PointCounts()
    expect(fresh.countAnswered(points, Float64Array.of(0x1000, 0x1008), threads, out, 0, 2, spans, kindOf, runs, counts)).toBe(2)
    // The table grown (as grownFor makes a new array): the old one must no longer be read.
    spans.high = Float64Array.of(0x1004, 0x9000)
    expect(fresh.countAnswered(points, Float64Array.of(0x1000, 0x1008), threads, out, 0, 2, spans, kindOf, runs, counts)).toBe(1)
    runs.count = Float64Array.of(100, 0)
    const twice = Float64Array.of(0x1000, 0x1000)
    expect(fresh.countAnswered(points, twice, threads, out, 0, 2, spans, kindOf, runs, counts)).toBe(2)
    expect([...runs.count]).toEqual([102, 0])
    // The counts grown: a closed run goes into the new cells.
    counts.add(7, 7, 0, 1)
    counts.slots = new Int32Array(2048)
    counts.point = new Uint32Array(1024)
    counts.variable = new Int32Array(1024)
    counts.kind = new Uint8Array(1024)
    counts.count = new Float64Array(1024)
    counts.used[0] = 0
    runs.variable[0] = 9
    expect(fresh.countAnswered(points, twice, threads, out, 0, 1, spans, kindOf, runs, counts)).toBe(1)
    expect(cells(counts)).toEqual([[0, 9, 1, 102]])
  })

  it("answers a span's miss from the map's last answer, the thread's locals or its heap blocks, as resolve() would, and leaves the rest", () => {
    // Blocks [0x10000, 0x10040) -> 3 and [0x10040, 0x10080) -> 3 (two nodes of one map),
    // [0x20000, 0x20010) -> 0 (unknown), and the last answer [0x30000, 0x30100) -> 3 (a local of
    // the thread's one frame, with [0x30200, 0x30208) -> 5).
    const heap = (s: ReturnType<typeof state>) => {
      withFrames(s, [
        [
          [0x30000, 0x30100, 3],
          [0x30200, 0x30208, 5]
        ]
      ])
      s.spans.heapStart.set([0x10000, 0x10040, 0x20000])
      s.spans.heapEnd.set([0x10040, 0x10080, 0x20010])
      s.spans.heapVariable.set([3, 3, 0])
      s.spans.state[MapState.heapCount] = 3
      s.spans.state[MapState.lastStart] = 0x30000
      s.spans.state[MapState.lastEnd] = 0x30100
      s.spans.state[MapState.lastVariable] = 3
      return s
    }
    const s = heap(state())
    // Point 0 walks node to node; each block found becomes its span and the last answer.
    expect(countAnswered(Uint32Array.of(0, 0, 0), Float64Array.of(0x10008, 0x10048, 0x1007f), 0, 3, s.spans, s.kindOf, s.runs)).toBe(3)
    expect([...s.runs.count]).toEqual([13, 0])
    expect([s.spans.low[0], s.spans.high[0], s.spans.variable[0], s.spans.epochs[0]]).toEqual([0x10040, 0x10080, 3, 5])
    expect([...s.spans.state.subarray(MapState.lastStart, MapState.lastVariable + 1)]).toEqual([0x10040, 0x10080, 3])
    // The local stopped being the last answer: found among the thread's frames, and the last answer again.
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x30010), 0, 1, s.spans, s.kindOf, s.runs)).toBe(1)
    expect([s.spans.low[0], s.spans.high[0], s.spans.variable[0], s.runs.count[0]]).toEqual([0x30000, 0x30100, 3, 14])
    expect([...s.spans.state.subarray(MapState.lastStart, MapState.lastVariable + 1)]).toEqual([0x30000, 0x30100, 3])
    // A local is looked for before the heap (here one over a block: resolve() answers the local).
    const over = withFrames(heap(state()), [[[0x10000, 0x10009, 5]]])
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x10008), 0, 1, over.spans, over.kindOf, over.runs)).toBe(1)
    expect([over.spans.low[0], over.spans.high[0], over.spans.variable[0]]).toEqual([0x10000, 0x10009, 5])
    const cases: Array<[string, (s: ReturnType<typeof state>) => void, number]> = [
      ['a block of no variable: a gap is looked for instead', () => {}, 0x20008],
      ['a frame whose locals the table does not hold', (s) => withFrames(s, [[[0x10000, 0x10009, 5]]]).spans.frames.set([9], FrameTable.first), 0x10008],
      ['more frames than the table holds', (s) => withFrames(s, [[[0x10000, 0x10009, 5]]]).spans.state.set([2], MapState.framesDepth), 0x10008],
      ['another thread than the map is in', (s) => (s.spans.state[MapState.thread] = 1), 0x10008],
      ['blocks the arrays do not hold', (s) => (s.spans.state[MapState.heapCount] = 5), 0x10008],
      ['NaN', () => {}, NaN]
    ]
    for (const [why, change, address] of cases) {
      const c = heap(state())
      change(c)
      expect(countAnswered(Uint32Array.of(0), Float64Array.of(address), 0, 1, c.spans, c.kindOf, c.runs), why).toBe(0)
      expect(c.spans.low[0], why).toBe(0x1000)
    }
    // The last answer is taken before the frames and the heap, as in resolve().
    const last = heap(state())
    last.spans.state[MapState.framesLow] = 0
    last.spans.state[MapState.framesHigh] = Infinity
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x300ff), 0, 1, last.spans, last.kindOf, last.runs)).toBe(1)
    // A block of another variable ends the point's run: the span is stored, the run closed.
    const other = heap(state())
    other.spans.heapVariable[1] = 4
    const counts = new PointCounts()
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x10040), 0, 1, other.spans, other.kindOf, other.runs, undefined, counts)).toBe(1)
    expect(other.spans.variable[0]).toBe(4)
    expect(cells(counts)).toEqual([[0, 3, 1, 10]])
    // Between blocks: unknown, and the gap between them is the point's span.
    const between = heap(state())
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x10080), 0, 1, between.spans, between.kindOf, between.runs)).toBe(1)
    expect([between.spans.low[0], between.spans.high[0], between.spans.variable[0], between.runs.variable[0]]).toEqual([0x10080, 0x20000, 0, 0])
    // No blocks: unknown up to the frames.
    const none = heap(state())
    none.spans.state[MapState.heapCount] = 0
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x10008), 0, 1, none.spans, none.kindOf, none.runs)).toBe(1)
    expect([none.spans.low[0], none.spans.high[0], none.spans.variable[0]]).toEqual([-Infinity, 0x30000, 0])
    // Between the frame's locals: unknown, the gap between them.
    const slots = heap(state())
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x30180), 0, 1, slots.spans, slots.kindOf, slots.runs)).toBe(1)
    expect([slots.spans.low[0], slots.spans.high[0], slots.spans.variable[0]]).toEqual([0x30100, 0x30200, 0])
    // The access's own thread counts, not the previous one's.
    const threads = heap(state())
    threads.spans.state[MapState.thread] = 2
    expect(countAnswered(Uint32Array.of(0, 0), Float64Array.of(0x10008, 0x10048), 0, 2, threads.spans, threads.kindOf, threads.runs, Uint16Array.of(2, 1))).toBe(1)
  })

  it('answers unknown, as resolve() would, where nothing can hold the address; else leaves it', () => {
    // Point 1's run is unknown (variable 0, kind 2); its span [0x8000, 0x9000) is elsewhere.
    const at = (change: (s: ReturnType<typeof state>) => void, address: number) => {
      const s = state()
      s.spans.heapStart.set([0x10000])
      s.spans.heapEnd.set([0x10040])
      s.spans.heapVariable.set([3])
      s.spans.state[MapState.heapCount] = 1
      change(s)
      const stopped = countAnswered(Uint32Array.of(1, 1), Float64Array.of(address, address + 8), 0, 2, s.spans, s.kindOf, s.runs)
      return { stopped, count: s.runs.count[1], span: [s.spans.low[1], s.spans.high[1]] }
    }
    // Outside every block, the frames and the globals, one thread: counted, the gap around it the span.
    expect(at(() => {}, 0x7fff0000)).toEqual({ stopped: 2, count: 2, span: [0x10040, Infinity] })
    expect(at(() => {}, 0x10040)).toEqual({ stopped: 2, count: 2, span: [0x10040, Infinity] })
    // Inside the frames' hull but in none of their locals: counted, the gap between them the span.
    const frames = (s: ReturnType<typeof state>) =>
      withFrames(s, [
        [[0x7ff00000, 0x7ff00010, 7]],
        [[0x7fff8000, 0x7fff8010, 8]]
      ])
    expect(at(frames, 0x7fff0000)).toEqual({ stopped: 2, count: 2, span: [0x7ff00010, 0x7fff8000] })
    // A global may hold it, another thread's local may: left to the correlator.
    const left: Array<[string, (s: ReturnType<typeof state>) => void]> = [
      ['inside the globals', (s) => ((s.spans.state[MapState.globalsLow] = 0x7ff00000), (s.spans.state[MapState.globalsHigh] = 0x80000000))],
      ['another thread has frames', (s) => (s.spans.state[MapState.otherFrames] = 1)]
    ]
    for (const [why, change] of left) expect(at(change, 0x7fff0000), why).toEqual({ stopped: 0, count: 0, span: [0x8000, 0x9000] })
    // A run of a known variable ends at the unknown address: closed, and a run of unknown begun.
    const s = state()
    const counts = new PointCounts()
    expect(countAnswered(Uint32Array.of(0), Float64Array.of(0x7fff0000), 0, 1, s.spans, s.kindOf, s.runs, undefined, counts)).toBe(1)
    expect([s.runs.variable[0], s.runs.kind[0], s.runs.count[0]]).toEqual([0, 1, 1])
    expect(cells(counts)).toEqual([[0, 3, 1, 10]])
  })

  it('answers as AddressMap.resolveAt does, and stores the same span (freed blocks, globals, frames and their locals)', () => {
    let answered = 0
    /**
     * Each address through the map (point 2k) and through the loop (point 2k + 1, whose run of a
     * variable no range has ends there, so the loop goes on when it answers): the same answer,
     * and the same span stored (or none), where the loop answers.
     */
    const compare = (map: AddressMap, addresses: number[]) => {
      const loop = new NativeAttribution()
      const runs = { variable: new Int32Array(1024).fill(999), kind: new Uint8Array(1024), count: new Float64Array(1024).fill(1) }
      const out = new Int32Array(1)
      addresses.forEach((address, k) => {
        const v = map.resolveAt(2 * k, address)
        const spans = map.spans()
        const span = (p: number) => [spans.epochs[p], spans.low[p], spans.high[p], spans.variable[p]]
        if (loop.countAnswered(Uint32Array.of(2 * k + 1), Float64Array.of(address), Uint16Array.of(0), out, 0, 1, spans, new Uint8Array(1024), runs, new PointCounts()) === 0) {
          expect(spans.epochs[2 * k + 1] ?? 0, `at ${address}`).toBe(0) // left to the correlator (a global may hold it; a point beyond the arrays)
          return
        }
        answered++
        expect(out[0], `at ${address}`).toBe(v)
        expect(span(2 * k + 1), `at ${address}`).toEqual(span(2 * k))
      })
    }
    // Twenty blocks of 16 bytes, the middle eighteen freed: the gaps end at the tombstones nextLive
    // and previousLive stop at; a global just above a fractional address bounds no gap.
    const fixed = new AddressMap()
    fixed.setGlobals([{ start: 0x1000, end: 0x1010, variable: 9 }])
    for (let k = 0; k < 20; k++) fixed.alloc(k * 16, 16, 3)
    for (let k = 1; k < 19; k++) fixed.free(k * 16)
    compare(fixed, [24, 40, 150, 290, 310, 320, 0xfff, 0xfff + 0.5, 0x1010, 0x2000])
    fc.assert(
      fc.property(
        fc.array(fc.record({ start: fc.nat(200), size: fc.integer({ min: 1, max: 3 }), freed: fc.nat(9) }), { maxLength: 60 }),
        // Mostly whole addresses (a fraction: where resolveAt finds no gap next to a range).
        fc.array(fc.tuple(fc.nat(260), fc.constantFrom(0, 8, 8, 15.5)), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        // Up to three frames (CFAs 262, 258 and 254), each with locals up to 64 bytes below its CFA (scopes may share a slot).
        fc.array(fc.array(fc.record({ offset: fc.integer({ min: -64, max: -1 }), size: fc.integer({ min: 1, max: 16 }) }), { minLength: 1, maxLength: 4 }), { maxLength: 3 }),
        (blocks, addresses, withGlobals, frames) => {
          // Addresses in units of 16: blocks in [0, 203), a global at 240, frames in [250, 262).
          const map = new AddressMap()
          if (withGlobals) map.setGlobals([{ start: 240 * 16, end: 242 * 16, variable: 9 }])
          for (const b of blocks) map.alloc(b.start * 16, b.size * 16, 3)
          // Mostly freed: runs of tombstones.
          for (const b of blocks) if (b.freed < 7) map.free(b.start * 16)
          frames.forEach((locals, d) => map.enterFrame((262 - 4 * d) * 16, locals.map((l, k) => ({ ...l, variable: 10 + 4 * d + k }))))
          compare(map, addresses.map(([a, offset]) => a * 16 + offset))
        }
      ),
      { numRuns: 300 }
    )
    expect(answered).toBeGreaterThan(1000)
  })

  it('closes a run that ends into its point, variable and kind, and begins the next, as Correlator.count does', () => {
    const s = state()
    s.spans.variable[0] = 4 // point 0's span now answers 4: its run of 3 ends
    const counts = new PointCounts()
    counts.add(0, 4, 1, 5) // a run closed before (by the correlator)
    const points = Uint32Array.of(0, 0, 1, 0)
    expect(countAnswered(points, Float64Array.of(0x1000, 0x1008, 0x8000, 0x1010), 0, 4, s.spans, s.kindOf, s.runs, undefined, counts)).toBe(4)
    expect([...s.runs.variable, ...s.runs.count]).toEqual([4, 0, 3, 1])
    // Another kind ends a run too (a point's kind is kindOf's; the run may be of another, from attribute()).
    s.runs.kind[0] = 0
    expect(countAnswered(points, Float64Array.of(0x1000), 0, 1, s.spans, s.kindOf, s.runs, undefined, counts)).toBe(1)
    expect(cells(counts)).toEqual([
      [0, 4, 1, 5],
      [0, 3, 1, 10],
      [0, 4, 0, 3]
    ])
    // No cell left: the correlator grows the table and closes the run.
    const full = state()
    full.spans.variable[0] = 4
    const fullCounts = new PointCounts()
    fullCounts.used[0] = fullCounts.point.length
    expect(countAnswered(points, Float64Array.of(0x1000), 0, 1, full.spans, full.kindOf, full.runs, undefined, fullCounts)).toBe(0)
    expect([full.runs.variable[0], full.runs.count[0]]).toEqual([3, 10])
  })

  it('refuses a range outside the batch with one clear message', () => {
    const { spans, runs, kindOf } = state()
    expect(() => countAnswered(Uint32Array.of(0), Float64Array.of(0x1000), 0, 2, spans, kindOf, runs)).toThrow(/within the batch/)
  })
})

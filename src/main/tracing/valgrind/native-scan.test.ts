import { describe, expect, it } from 'vitest'
import { NativeScan, type AccessBatch } from './native-scan'

/** Tool records: accesses {address, point, size, thread}, or a control record (tag >= 0xffff0000). */
function stage(records: Array<{ address: number; tag: number; size?: number; thread?: number }>): Uint8Array {
  const bytes = new Uint8Array(records.length * 16)
  const view = new DataView(bytes.buffer)
  records.forEach((r, i) => {
    view.setUint32(i * 16, r.address % 2 ** 32, true)
    view.setUint32(i * 16 + 4, Math.floor(r.address / 2 ** 32), true)
    view.setUint32(i * 16 + 8, r.tag, true)
    view.setUint16(i * 16 + 12, r.size ?? 8, true)
    view.setUint16(i * 16 + 14, r.thread ?? 0, true)
  })
  return bytes
}

// One scanner for every test: each call's arrays differ, so each binds them again (as a grown array is).
const scanner = new NativeScan()
const scanAccesses = (...args: Parameters<NativeScan['scan']>) => scanner.scan(...args)

const batch = (n: number): AccessBatch => ({ points: new Uint32Array(n), addresses: new Float64Array(n), sizes: new Uint16Array(n), threads: new Uint16Array(n) })

describe('NativeScan', () => {
  it('copies accesses with their session points, sizes and threads, and counts them per point', () => {
    const s = stage([
      { address: 0x7ffd_1234_5678, tag: 1, size: 4, thread: 2 },
      { address: 0x1000, tag: 0 },
      { address: 0x1008, tag: 1, size: 2 }
    ])
    const b = batch(8)
    const counts = new Float64Array(4)
    const toolPoints = Int32Array.of(3, 0)
    expect(scanAccesses(s, 0, s.length, toolPoints, 2, b, 1, 8, counts)).toBe(48)
    expect([...b.points.subarray(1, 4)]).toEqual([0, 3, 0])
    // As the JavaScript reader reads it: hi * 2^32 + lo.
    expect([...b.addresses.subarray(1, 4)]).toEqual([0x7ffd_1234_5678, 0x1000, 0x1008])
    expect([...b.sizes.subarray(1, 4)]).toEqual([4, 8, 2])
    expect([...b.threads.subarray(1, 4)]).toEqual([2, 0, 0])
    expect([...counts]).toEqual([2, 0, 0, 1])
  })

  it('stops before a control record, an undefined point, a point without a session point, and at outCap', () => {
    const toolPoints = Int32Array.of(0, -1)
    const counts = new Float64Array(1)
    const control = stage([{ address: 0, tag: 0 }, { address: 5, tag: 0xffff0200 }])
    expect(scanAccesses(control, 0, control.length, toolPoints, 2, batch(4), 0, 4, counts)).toBe(16)
    const undefinedPoint = stage([{ address: 0, tag: 0 }, { address: 0, tag: 2 }])
    expect(scanAccesses(undefinedPoint, 0, undefinedPoint.length, Int32Array.of(0, -1, 0), 2, batch(4), 0, 4, counts)).toBe(16)
    const firstAccess = stage([{ address: 0, tag: 1 }])
    expect(scanAccesses(firstAccess, 0, firstAccess.length, toolPoints, 2, batch(4), 0, 4, counts)).toBe(0)
    const full = stage([{ address: 0, tag: 0 }, { address: 8, tag: 0 }, { address: 16, tag: 0 }])
    expect(scanAccesses(full, 0, full.length, toolPoints, 2, batch(4), 2, 4, counts)).toBe(32)
    expect(counts[0]).toBe(4)
  })

  it('refuses offsets that are not whole records of the stage, and batches shorter than outCap', () => {
    const s = stage([{ address: 0, tag: 0 }])
    expect(() => scanAccesses(s, 8, 16, Int32Array.of(0), 1, batch(4), 0, 4, new Float64Array(1))).toThrow(/record offsets/)
    expect(() => scanAccesses(s, 0, 32, Int32Array.of(0), 1, batch(4), 0, 4, new Float64Array(1))).toThrow(/record offsets/)
    expect(() => scanAccesses(s, 0, 16, Int32Array.of(0), 1, batch(4), 0, 5, new Float64Array(1))).toThrow(/shorter/)
  })

  it('keeps its arrays bound while they stay, and binds a replaced one', () => {
    const own = new NativeScan()
    const s = stage([{ address: 0x10, tag: 0 }, { address: 0x20, tag: 1 }, { address: 0x30, tag: 0 }])
    const b = batch(8)
    const toolPoints = Int32Array.of(0, 1)
    const counts = new Float64Array(2)
    expect(own.scan(s, 0, 16, toolPoints, 2, b, 0, 8, counts)).toBe(16)
    expect(own.scan(s, 16, 48, toolPoints, 2, b, 1, 8, counts)).toBe(48)
    expect([...b.addresses.subarray(0, 3)]).toEqual([0x10, 0x20, 0x30])
    expect([...counts]).toEqual([2, 1])
    // The counts grown (a new point): the new array counts from here on, the old one no more.
    const grown = new Float64Array(4)
    grown.set(counts)
    expect(own.scan(s, 0, 16, toolPoints, 2, b, 3, 8, grown)).toBe(16)
    expect([...grown]).toEqual([3, 1, 0, 0])
    expect([...counts]).toEqual([2, 1])
    // Another batch object with other arrays: written there.
    const other = batch(2)
    expect(own.scan(s, 32, 48, toolPoints, 2, other, 0, 2, grown)).toBe(48)
    expect(other.addresses[0]).toBe(0x30)
    expect(b.addresses[3]).toBe(0x10)
    expect(() => own.scan(s, 0, 16, toolPoints, 2, other, 0, 3, grown)).toThrow(/shorter/)
  })

  it('passes over entries and returns that change no kept frame, and stops at those that do', () => {
    const enter = (entry: number, sp: number, thread: number) => [
      { address: entry, tag: 0xffff0301, thread },
      { address: sp, tag: 0 }
    ]
    const leave = (sp: number, thread: number) => ({ address: sp, tag: 0xffff0400, thread })
    const s = stage([
      { address: 0x10, tag: 0 },
      ...enter(0x1000, 0x7000, 1), // no kept locals
      leave(0x7008, 1), // thread 1's innermost kept frame is at 0x8000: pops nothing
      { address: 0x20, tag: 0, thread: 1 },
      leave(0x8000, 1), // pops it
      { address: 0x30, tag: 0 },
      ...enter(0x2000, 0x6000, 2) // kept
    ])
    const top = new Float64Array(4).fill(Infinity)
    top[1] = 0x8000
    const frames = { entries: Float64Array.of(0x2000, 0x3000), top }
    const b = batch(8)
    const counts = new Float64Array(1)
    const own = new NativeScan()
    expect(own.scan(s, 0, s.length, Int32Array.of(0), 1, b, 0, 8, counts, undefined, frames)).toBe(5 * 16)
    expect([...b.addresses.subarray(0, 2)]).toEqual([0x10, 0x20])
    expect(own.scan(s, 6 * 16, s.length, Int32Array.of(0), 1, b, 2, 8, counts, undefined, frames)).toBe(7 * 16)
    // An entry whose slot has not arrived yet, and a thread beyond the filter: the tracer's path.
    const cut = stage(enter(0x1000, 0x7000, 1).slice(0, 1))
    expect(own.scan(cut, 0, cut.length, Int32Array.of(0), 1, b, 0, 8, counts, undefined, frames)).toBe(0)
    const farThread = stage([leave(0x7008, 9)])
    expect(own.scan(farThread, 0, farThread.length, Int32Array.of(0), 1, b, 0, 8, counts, undefined, frames)).toBe(0)
    // Without a filter every one stops the scan.
    expect(own.scan(s, 16, s.length, Int32Array.of(0), 1, b, 0, 8, counts)).toBe(16)
    expect(() => own.scan(s, 0, 16, Int32Array.of(0), 1, b, 0, 8, counts, undefined, { entries: Float64Array.of(2, 1), top })).toThrow(/ascending/)
  })
})

/**
 * SIGMA's loop-structured trace compression (DeRose et al., section 2.2–2.3), as a second
 * codec the benchmark compares with `prsd-sequitur-v1` (not used for sessions).
 *
 * The trace is a sequence of items; at first each access is an item (its point stands for
 * SIGMA's (block, offset) and carries one address). When the n items just seen are followed
 * by n items with the same shapes whose addresses differ by constant strides, a loop is
 * found: `repeat(x) { body } exit m` — the body repeated x times, address slot k advancing by
 * stride k per iteration, then the first m body items once more (the `exit` clause: the last
 * iteration ends early). The same compression runs again on its own output, so loops of
 * loops become nested repeats. Bodies up to MAX_BODY items; addresses of a repeat are the
 * base addresses of its body's slots.
 *
 * Format: varints (bytes.ts) then brotli: u count, u points, per point u size, u size
 * exceptions (u index delta, u size)..., u items, then items: tag 0 = access (u point,
 * i address - previous address written), tag 1 = repeat (u body length n, u iterations x,
 * u exit m, n items, then i stride per address slot).
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'
import { ByteReader, ByteWriter, writeSizeExceptions } from './bytes'

export const MAX_BODY = 32
const MAX_PASSES = 8

interface Access {
  kind: 0
  shape: number
  point: number
  addrs: Float64Array
}
interface Repeat {
  kind: 1
  shape: number
  body: Item[]
  iterations: number
  exit: number
  strides: Float64Array
  addrs: Float64Array
}
type Item = Access | Repeat

/** Interns repeat shapes: same body shapes, counts, exit and strides = same shape. */
class Shapes {
  private readonly ids = new Map<string, number>()
  constructor(private readonly base: number) {}
  of(r: Omit<Repeat, 'shape' | 'addrs' | 'kind'>): number {
    const key = `${r.iterations},${r.exit},${r.body.map((b) => b.shape).join('.')}|${Array.from(r.strides).join(',')}`
    let id = this.ids.get(key)
    if (id === undefined) this.ids.set(key, (id = this.base + this.ids.size))
    return id
  }
}

function sameShapes(items: Item[], a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (items[a + k]!.shape !== items[b + k]!.shape) return false
  return true
}

/** One pass of loop detection over a list of items. */
function compressPass(items: Item[], shapes: Shapes): Item[] {
  const out: Item[] = []
  let i = 0
  while (i < items.length) {
    let best: { n: number; x: number; m: number; strides: Float64Array } | null = null
    let bestCovered = 0
    for (let n = 1; n <= MAX_BODY && i + 2 * n <= items.length; n++) {
      if (!sameShapes(items, i, i + n, n)) continue
      let slots = 0
      for (let k = 0; k < n; k++) slots += items[i + k]!.addrs.length
      const strides = new Float64Array(slots)
      let s = 0
      for (let k = 0; k < n; k++) {
        const a = items[i + k]!.addrs
        const b = items[i + n + k]!.addrs
        for (let j = 0; j < a.length; j++) strides[s++] = b[j]! - a[j]!
      }
      // Count full iterations, then the items of the next one that still match (exit).
      let x = 2
      let m = 0
      for (;;) {
        const at = i + x * n
        let k = 0
        let s2 = 0
        for (; k < n && at + k < items.length; k++) {
          const it = items[at + k]!
          const body = items[i + k]!
          if (it.shape !== body.shape) break
          let ok = true
          for (let j = 0; j < body.addrs.length; j++)
            if (it.addrs[j] !== body.addrs[j]! + x * strides[s2 + j]!) {
              ok = false
              break
            }
          if (!ok) break
          s2 += body.addrs.length
        }
        if (k === n) x++
        else {
          m = k
          break
        }
      }
      const covered = x * n + m
      if (covered > bestCovered) {
        bestCovered = covered
        best = { n, x, m, strides }
      }
    }
    if (best && bestCovered >= 2 * best.n && bestCovered > 2) {
      const body = items.slice(i, i + best.n)
      const r = { body, iterations: best.x, exit: best.m, strides: best.strides }
      const addrs = new Float64Array(best.strides.length)
      let s = 0
      for (const b of body) for (const a of b.addrs) addrs[s++] = a
      out.push({ kind: 1, shape: shapes.of(r), addrs, ...r })
      i += bestCovered
    } else out.push(items[i++]!)
  }
  return out
}

export function encodeSigmaChunk(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array): Buffer {
  let items: Item[] = new Array<Item>(count)
  let pointCount = 0
  for (let i = 0; i < count; i++) {
    items[i] = { kind: 0, shape: points[i]!, point: points[i]!, addrs: Float64Array.of(addresses[i]!) }
    if (points[i]! >= pointCount) pointCount = points[i]! + 1
  }
  const shapes = new Shapes(pointCount)
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = compressPass(items, shapes)
    if (next.length === items.length) break
    items = next
  }
  const w = new ByteWriter(1 << 16)
  w.uint(count)
  // Sizes: each point's first size, then the accesses that differ from it.
  const sizeOf = new Int32Array(pointCount).fill(-1)
  const exceptions: number[] = []
  for (let i = 0; i < count; i++) {
    const p = points[i]!
    if (sizeOf[p] === -1) sizeOf[p] = sizes[i]!
    else if (sizeOf[p] !== sizes[i]) exceptions.push(i, sizes[i]!)
  }
  w.uint(pointCount)
  for (let p = 0; p < pointCount; p++) w.uint(Math.max(0, sizeOf[p]!))
  writeSizeExceptions(w, exceptions)
  let prevAddr = 0
  const write = (it: Item): void => {
    if (it.kind === 0) {
      w.byte(0)
      w.uint(it.point)
      w.int(it.addrs[0]! - prevAddr)
      prevAddr = it.addrs[0]!
    } else {
      w.byte(1)
      w.uint(it.body.length)
      w.uint(it.iterations)
      w.uint(it.exit)
      for (const b of it.body) write(b)
      for (const s of it.strides) w.int(s)
    }
  }
  w.uint(items.length)
  for (const it of items) write(it)
  const data = w.view()
  return brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: data.length <= 1 << 18 ? 11 : 5, [constants.BROTLI_PARAM_SIZE_HINT]: data.length, [constants.BROTLI_PARAM_LGWIN]: 22 }
  })
}

interface Node {
  kind: 0 | 1
  point: number
  addr: number
  body: Node[]
  iterations: number
  exit: number
  strides: Float64Array
  slots: number
}

export function decodeSigmaChunk(data: Uint8Array): { count: number; points: Uint32Array; addresses: Float64Array; sizes: Uint16Array } {
  const r = new ByteReader(brotliDecompressSync(data))
  const count = r.uint()
  const pointCount = r.uint()
  const sizeOf = new Uint16Array(pointCount)
  for (let p = 0; p < pointCount; p++) sizeOf[p] = r.uint()
  const exceptions: number[] = []
  let index = 0
  for (let k = r.uint(); k > 0; k--) {
    index += r.uint()
    exceptions.push(index, r.uint())
  }
  let prevAddr = 0
  const read = (): Node => {
    const tag = r.byte()
    if (tag === 0) {
      const point = r.uint()
      prevAddr += r.int()
      return { kind: 0, point, addr: prevAddr, body: [], iterations: 0, exit: 0, strides: new Float64Array(0), slots: 1 }
    }
    const n = r.uint()
    const iterations = r.uint()
    const exit = r.uint()
    const body: Node[] = []
    let slots = 0
    for (let k = 0; k < n; k++) {
      const b = read()
      body.push(b)
      slots += b.slots
    }
    const strides = new Float64Array(slots)
    for (let s = 0; s < slots; s++) strides[s] = r.int()
    return { kind: 1, point: 0, addr: 0, body, iterations, exit, strides, slots }
  }
  const points = new Uint32Array(count)
  const addresses = new Float64Array(count)
  let at = 0
  const expand = (node: Node, shift: Float64Array, from: number): void => {
    if (node.kind === 0) {
      if (at >= count) throw new Error('sigma chunk expands past its count')
      points[at] = node.point
      addresses[at++] = node.addr + shift[from]!
      return
    }
    const inner = new Float64Array(node.slots)
    for (let it = 0; it <= node.iterations; it++) {
      let s = 0
      for (let k = 0; k < node.body.length; k++) {
        if (it === node.iterations && k >= node.exit) return
        const b = node.body[k]!
        for (let j = 0; j < b.slots; j++) inner[s + j] = shift[from + s + j]! + it * node.strides[s + j]!
        expand(b, inner, s)
        s += b.slots
      }
    }
  }
  const items = r.uint()
  for (let i = 0; i < items; i++) {
    const node = read()
    expand(node, new Float64Array(node.slots), 0)
  }
  if (at !== count) throw new Error(`sigma chunk expands to ${at} accesses, expected ${count}`)
  const sizes = new Uint16Array(count)
  for (let i = 0; i < count; i++) sizes[i] = sizeOf[points[i]!]!
  for (let k = 0; k < exceptions.length; k += 2) sizes[exceptions[k]!] = exceptions[k + 1]!
  return { count, points, addresses, sizes }
}

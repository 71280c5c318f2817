/**
 * SIGMA section 3.2 layout filters: what-if padding applied to addresses on their way into
 * the simulator, without re-running the program.
 *  - external padding of V by N bytes: V and everything laid out after it in the same object
 *    file move up N bytes (a dummy variable of N bytes inserted before V);
 *  - internal padding: one dimension of V grows (512x512 -> 513x512); each element moves to
 *    its offset under the new extents (SIGMA's weights vector), and everything after V moves
 *    up by the growth of V.
 * The mapping is piecewise over address ranges: a sorted list of breakpoints with a constant
 * shift per range and, inside an internally padded variable, an index remap. Addresses in no
 * range (stack, heap, other objects) pass unchanged.
 */
import type { DimsSource, LayoutFilter } from '../../shared/domain'

/** A data structure as placed in the traced run. */
export interface PlacedVariable {
  name: string
  start: number
  size: number
  /** Object file (or other grouping): external padding moves only what follows in the same group. */
  group: string
  dims: number[] | null
  elementSize: number | null
  /** Where dims came from (absent: not known, as for ELF-only globals). */
  dimsFrom?: DimsSource | null
}

interface Remap {
  start: number
  elementSize: number
  oldDims: number[]
  newDims: number[]
  rowMajor: boolean
}

export class LayoutMap {
  /** Range i is [at[i], at[i+1]); the last range ends at +infinity with shift 0. */
  private readonly at: Float64Array
  private readonly shift: Float64Array
  private readonly remap: Array<Remap | null>
  private last = 0

  constructor(at: number[], shift: number[], remap: Array<Remap | null>) {
    this.at = Float64Array.from(at)
    this.shift = Float64Array.from(shift)
    this.remap = remap
  }

  /** Where `address` lands under the filters. */
  map(address: number): number {
    const at = this.at
    let i = this.last
    // Accesses cluster: try the range used last before searching.
    if (!(i < at.length && address >= at[i]! && (i + 1 === at.length || address < at[i + 1]!))) {
      let lo = 0
      let hi = at.length - 1
      if (at.length === 0 || address < at[0]!) return address
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1
        if (at[mid]! <= address) lo = mid
        else hi = mid - 1
      }
      i = lo
      this.last = i
    }
    const r = this.remap[i]
    if (r) return r.start + this.shift[i]! + remapOffset(r, address - r.start)
    return address + this.shift[i]!
  }

  /** Maps `count` addresses from `src` into `dst` (may be the same array). */
  apply(src: Float64Array, dst: Float64Array, count: number): void {
    for (let k = 0; k < count; k++) dst[k] = this.map(src[k]!)
  }

  /** The batch with its addresses moved (into a buffer reused from call to call). */
  readonly mapBatch = batchMapper((src, dst, count) => this.apply(src, dst, count))
}

/**
 * Maps batches' addresses through `map` into one buffer that grows as needed: the batch is
 * returned with `addresses` replaced, valid until the next call.
 */
export function batchMapper(map: (src: Float64Array, dst: Float64Array, count: number) => void): <T extends { count: number; addresses: Float64Array }>(batch: T) => T {
  let buffer = new Float64Array(0)
  return (batch) => {
    if (buffer.length < batch.count) buffer = new Float64Array(batch.count)
    map(batch.addresses, buffer, batch.count)
    return { ...batch, addresses: buffer.subarray(0, batch.count) }
  }
}

function remapOffset(r: Remap, offset: number): number {
  const e = r.elementSize
  let q = Math.floor(offset / e)
  const rest = offset - q * e
  const m = r.oldDims.length
  let out = 0
  let weight = 1
  for (let n = 0; n < m; n++) {
    // Fastest-varying dimension first: the last one for row-major, the first for column-major.
    const k = r.rowMajor ? m - 1 - n : n
    const d = r.oldDims[k]!
    const index = q % d
    q = Math.floor(q / d)
    out += index * weight
    weight *= r.newDims[k]!
  }
  return out * e + rest
}

const product = (xs: number[]) => xs.reduce((a, b) => a * b, 1)

/**
 * Builds the address map for `filters` over the run's variables. Throws an Error naming the
 * problem (unknown variable, unknown dimensions, bad dimension) for the caller to reword.
 */
export function buildLayoutMap(variables: PlacedVariable[], filters: LayoutFilter[]): LayoutMap {
  const byName = new Map(variables.map((v) => [v.name, v]))
  const groupEnd = new Map<string, number>()
  for (const v of variables) groupEnd.set(v.group, Math.max(groupEnd.get(v.group) ?? 0, v.start + v.size))
  // Shift changes: +bytes from an address up to its group's end.
  const deltas: Array<[number, number]> = []
  const remaps = new Map<string, Remap>()
  for (const f of filters) {
    const v = byName.get(f.variable)
    if (!v) throw new Error(`variable "${f.variable}" is not known to this session`)
    const end = groupEnd.get(v.group)!
    if (f.kind === 'external') {
      deltas.push([v.start, f.bytes], [end, -f.bytes])
      continue
    }
    let r = remaps.get(v.name)
    if (!r) {
      const dims = f.dims ?? v.dims
      const elementSize = f.elementSize ?? v.elementSize
      if (!dims || dims.length === 0 || !elementSize)
        throw new Error(`the dimensions of "${v.name}" are not known; give them (e.g. ${v.name}=1000x1000@8)`)
      if (product(dims) * elementSize !== v.size)
        throw new Error(`dimensions ${dims.join('x')} of ${elementSize}-byte elements make ${product(dims) * elementSize} bytes, but "${v.name}" has ${v.size}`)
      r = { start: v.start, elementSize, oldDims: [...dims], newDims: [...dims], rowMajor: f.order === 'row' }
      remaps.set(v.name, r)
    } else if (r.rowMajor !== (f.order === 'row')) throw new Error(`"${v.name}" is padded both row- and column-major`)
    if (!Number.isInteger(f.dim) || f.dim < 0 || f.dim >= r.oldDims.length) throw new Error(`"${v.name}" has ${r.oldDims.length} dimensions; dimension ${f.dim} does not exist (0 = outermost)`)
    if (f.extent < r.oldDims[f.dim]!) throw new Error(`internal padding can only grow a dimension (${v.name} dimension ${f.dim} is ${r.oldDims[f.dim]})`)
    r.newDims[f.dim] = f.extent
  }
  for (const [name, r] of remaps) {
    const v = byName.get(name)!
    const growth = (product(r.newDims) - product(r.oldDims)) * r.elementSize
    deltas.push([v.start + v.size, growth], [groupEnd.get(v.group)!, -growth])
  }
  // Breakpoints: every delta address and every remapped variable's bounds.
  const points = new Set<number>(deltas.map((d) => d[0]))
  for (const r of remaps.values()) {
    points.add(r.start)
    points.add(r.start + byName.get([...remaps.entries()].find((e) => e[1] === r)![0])!.size)
  }
  const at = [...points].sort((a, b) => a - b)
  const shift: number[] = []
  const remap: Array<Remap | null> = []
  for (const a of at) {
    let s = 0
    for (const [x, d] of deltas) if (x <= a) s += d
    shift.push(s)
    let inside: Remap | null = null
    for (const [name, r] of remaps) if (a >= r.start && a < r.start + byName.get(name)!.size) inside = r
    remap.push(inside)
  }
  return new LayoutMap(at, shift, remap)
}

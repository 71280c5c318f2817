/**
 * Dimensions of heap blocks, so slices (`A[*,0:9]`) and row padding work on malloc'd arrays
 * as they do on global ones. Two sources, in this order:
 *  1. the debug type of the pointer the block is assigned to (the name-variables.ts target):
 *     a block of `size` bytes held by `double (*A)[N]` is `rows` x N with rows = size / (N*8);
 *     by PolyBench's `double (*A)[NI][NJ]` (one pointee) it is NI x NJ. A pointer to a scalar or
 *     struct gives the element size and one dimension.
 *  2. where no array type says more: the strides a reference walked the block with (the
 *     compressor's RSD strides per point). A constant stride S of at least a cache line that is
 *     a multiple of the element size and divides the block is a row of S bytes; strides that
 *     divide one another nest (3-D). Marked as inferred (`dimsFrom: 'strides'`).
 * Dimensions must cover the block exactly (extents x element = size), or there are none.
 */
import type { DimsSource } from '../../shared/domain'
import type { PointeeShape } from './gdb-variables'

export interface HeapShape {
  /** The block's type, e.g. `double [48][56]`, or null where only strides tell. */
  type: string | null
  elementSize: number | null
  dims: number[] | null
  dimsFrom: DimsSource | null
}

/** A stride a reference walked the block with, and how many of its RSDs had it. */
export interface WalkStride {
  stride: number
  weight: number
}

/** Smallest stride taken for a row: a cache line (shorter rows are not what padding is for). */
export const MIN_ROW_BYTES = 64
/** A stride counts when at least this share of the block's RSDs had it (one stray jump does not make a row). */
export const MIN_STRIDE_SHARE = 0.05

/** Inserts the outermost extent into a C array type's text: `double [56]` -> `double [48][56]`. */
function withRows(type: string, rows: number): string {
  const at = type.indexOf('[')
  return at < 0 ? `${type} [${rows}]` : `${type.slice(0, at)}[${rows}]${type.slice(at)}`
}

/** The shape of a `size`-byte block from the pointer it is assigned to. */
export function shapeFromPointee({ pointee }: PointeeShape, size: number): HeapShape {
  const rows = size / pointee.size
  if (!Number.isInteger(rows) || rows < 1) return { type: null, elementSize: pointee.elementSize, dims: null, dimsFrom: null }
  // One pointee of an array type is the array itself (PolyBench's `(*A)[NI][NJ]`).
  if (pointee.dims && rows === 1) return { type: pointee.type, elementSize: pointee.elementSize, dims: [...pointee.dims], dimsFrom: 'type' }
  return { type: withRows(pointee.type, rows), elementSize: pointee.elementSize, dims: [rows, ...(pointee.dims ?? [])], dimsFrom: 'type' }
}

/**
 * Dimensions of a `size`-byte block from the strides its references walked it with; the
 * element size is the pointer's when known, else the smallest stride seen (a walk along a
 * row). Null when no stride makes rows of a cache line or more that tile the block.
 */
export function shapeFromStrides(size: number, elementSize: number | null, strides: readonly WalkStride[]): { elementSize: number; dims: number[] } | null {
  const weights = new Map<number, number>()
  let total = 0
  for (const s of strides) {
    const stride = Math.abs(s.stride)
    if (stride === 0 || s.weight <= 0) continue
    weights.set(stride, (weights.get(stride) ?? 0) + s.weight)
    total += s.weight
  }
  if (total === 0) return null
  const seen = [...weights.keys()].filter((s) => weights.get(s)! >= MIN_STRIDE_SHARE * total).sort((a, b) => a - b)
  const e = elementSize ?? seen[0]
  if (!e || size % e !== 0) return null
  // Rows nest: each taken stride a multiple of the one before (of the element for the first).
  const rows: number[] = []
  for (const s of seen) {
    const inner = rows.length > 0 ? rows[rows.length - 1]! : e
    if (s >= MIN_ROW_BYTES && s > inner && s < size && s % inner === 0 && size % s === 0) rows.push(s)
  }
  if (rows.length === 0) return null
  const dims = [size / rows[rows.length - 1]!]
  for (let k = rows.length - 1; k > 0; k--) dims.push(rows[k]! / rows[k - 1]!)
  dims.push(rows[0]! / e)
  return { elementSize: e, dims }
}

/**
 * A heap block's shape: its pointer's type first; strides where the type gives no more than
 * one dimension (`double *A` indexed `A[i*N+j]`), or where there is no typed pointer.
 */
export function heapShape(size: number, pointee: PointeeShape | null, strides: readonly WalkStride[]): HeapShape {
  const typed = pointee ? shapeFromPointee(pointee, size) : null
  if (typed?.dims && typed.dims.length > 1) return typed
  const inferred = shapeFromStrides(size, typed?.elementSize ?? null, strides)
  if (inferred) return { type: typed?.type ?? null, elementSize: inferred.elementSize, dims: inferred.dims, dimsFrom: 'strides' }
  return typed ?? { type: null, elementSize: null, dims: null, dimsFrom: null }
}

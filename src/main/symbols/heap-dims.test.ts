import { describe, expect, it } from 'vitest'
import { heapShape, shapeFromPointee, shapeFromStrides } from './heap-dims'
import type { PointeeShape } from './gdb-variables'

const pointee = (pointer: string, type: string, size: number, elementSize: number, dims: number[] | null): PointeeShape => ({ pointer, pointee: { type, size, elementSize, dims } })
const rowOf56 = pointee('double (*)[56]', 'double [56]', 448, 8, [56])

describe('shapeFromPointee', () => {
  it('double (*A)[N]: rows = size / (N*8)', () => {
    expect(shapeFromPointee(rowOf56, 48 * 448)).toEqual({ type: 'double [48][56]', elementSize: 8, dims: [48, 56], dimsFrom: 'type' })
  })

  it("PolyBench's double (*A)[NI][NJ]: one pointee is the array", () => {
    const p = pointee('double (*)[48][56]', 'double [48][56]', 48 * 448, 8, [48, 56])
    expect(shapeFromPointee(p, 48 * 448)).toEqual({ type: 'double [48][56]', elementSize: 8, dims: [48, 56], dimsFrom: 'type' })
    // Two of them: a third dimension.
    expect(shapeFromPointee(p, 2 * 48 * 448).dims).toEqual([2, 48, 56])
  })

  it('a pointer to a scalar or a struct: one dimension of its elements', () => {
    expect(shapeFromPointee(pointee('double *', 'double', 8, 8, null), 800)).toEqual({ type: 'double [100]', elementSize: 8, dims: [100], dimsFrom: 'type' })
    expect(shapeFromPointee(pointee('struct p *', 'struct p', 24, 24, null), 240).dims).toEqual([10])
  })

  it('a block that is not a whole number of pointees has no dims, but keeps the element size', () => {
    expect(shapeFromPointee(rowOf56, 48 * 448 + 16)).toEqual({ type: null, elementSize: 8, dims: null, dimsFrom: null })
    expect(shapeFromPointee(rowOf56, 100)).toEqual({ type: null, elementSize: 8, dims: null, dimsFrom: null })
  })
})

describe('shapeFromStrides', () => {
  it('a column walk with a constant stride that divides the block: rows of that stride', () => {
    expect(shapeFromStrides(64 * 512 * 8, 8, [{ stride: 4096, weight: 512 }])).toEqual({ elementSize: 8, dims: [64, 512] })
  })

  it('takes the element size from a walk along a row when the pointer gives none', () => {
    expect(shapeFromStrides(64 * 512 * 8, null, [{ stride: 8, weight: 64 }, { stride: 4096, weight: 512 }])).toEqual({ elementSize: 8, dims: [64, 512] })
    // Negative strides (walks backwards) count as their length.
    expect(shapeFromStrides(64 * 512 * 8, null, [{ stride: -8, weight: 64 }, { stride: -4096, weight: 512 }])).toEqual({ elementSize: 8, dims: [64, 512] })
  })

  it('nested strides give a third dimension', () => {
    // double[4][16][32]: strides 8, 256 (a row of 32), 4096 (a plane of 16 rows).
    expect(shapeFromStrides(4 * 16 * 32 * 8, 8, [{ stride: 256, weight: 100 }, { stride: 4096, weight: 100 }])).toEqual({ elementSize: 8, dims: [4, 16, 32] })
  })

  it('no rows from strides below a cache line, strides that do not divide the block, rare strides or an unknown element size', () => {
    expect(shapeFromStrides(4096, 8, [{ stride: 8, weight: 10 }, { stride: 32, weight: 10 }])).toBeNull()
    expect(shapeFromStrides(4096 * 3 + 8, 8, [{ stride: 4096, weight: 10 }])).toBeNull()
    expect(shapeFromStrides(8192, 8, [{ stride: 8, weight: 1000 }, { stride: 1024, weight: 10 }])).toBeNull()
    expect(shapeFromStrides(8192, null, [{ stride: 1024, weight: 10 }])).toBeNull()
    expect(shapeFromStrides(8192, 8, [])).toBeNull()
    // The whole block as one stride is not a row.
    expect(shapeFromStrides(8192, 8, [{ stride: 8192, weight: 10 }])).toBeNull()
  })
})

describe('heapShape', () => {
  it('a pointer to an array wins over strides', () => {
    expect(heapShape(48 * 448, rowOf56, [{ stride: 896, weight: 10 }])).toMatchObject({ dims: [48, 56], dimsFrom: 'type' })
  })

  it('double *A indexed A[i*N+j]: the pointer gives the element, a column walk the rows (inferred)', () => {
    expect(heapShape(64 * 4096, pointee('double *', 'double', 8, 8, null), [{ stride: 4096, weight: 64 }])).toEqual({ type: 'double [32768]', elementSize: 8, dims: [64, 512], dimsFrom: 'strides' })
    // No such walk: one dimension from the type.
    expect(heapShape(64 * 4096, pointee('double *', 'double', 8, 8, null), [{ stride: 8, weight: 1 }])).toMatchObject({ dims: [32768], dimsFrom: 'type' })
  })

  it('no typed pointer: strides alone, or nothing', () => {
    expect(heapShape(64 * 4096, null, [{ stride: 8, weight: 64 }, { stride: 4096, weight: 64 }])).toEqual({ type: null, elementSize: 8, dims: [64, 512], dimsFrom: 'strides' })
    expect(heapShape(64 * 4096, null, [])).toEqual({ type: null, elementSize: null, dims: null, dimsFrom: null })
  })
})

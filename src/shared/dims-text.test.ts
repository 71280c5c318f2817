import { describe, expect, it } from 'vitest'
import { dimsText } from './dims-text'

describe('dimsText', () => {
  it('prints extents outermost first, and says when strides, not a type, gave them', () => {
    expect(dimsText({ dims: [40, 70], dimsFrom: 'type' })).toBe('[40][70]')
    expect(dimsText({ dims: [64, 512], dimsFrom: 'strides' })).toBe('[64][512] (inferred from strides)')
    expect(dimsText({ dims: null, dimsFrom: null })).toBe('')
    expect(dimsText({ dims: [] })).toBe('')
  })
})

import { describe, expect, it } from 'vitest'
import { TextIndex } from './text-index'

describe('TextIndex', () => {
  it('numbers distinct texts in the order first met, the same text the same number', () => {
    const index = new TextIndex()
    expect(['b', 'a', 'b', '', 'a', 'c'].map((t) => index.of(t))).toEqual([0, 1, 0, 2, 1, 3])
    expect(index.texts).toEqual(['b', 'a', '', 'c'])
  })
})

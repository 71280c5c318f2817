import { describe, expect, it } from 'vitest'
import { placeCard } from './place-card'

const win = { width: 1280, height: 720 }
const inside = (p: { left: number; top: number }, c: { width: number; height: number }) =>
  p.left >= 8 && p.top >= 8 && p.left + c.width <= win.width - 8 && p.top + c.height <= win.height - 8

describe('placeCard', () => {
  it('goes below right of the pointer where there is room', () => {
    expect(placeCard({ x: 100, y: 100 }, { width: 400, height: 200 }, win)).toEqual({ left: 118, top: 118 })
  })
  it('flips to the left and above near the right and bottom edges, staying inside', () => {
    const c = { width: 700, height: 300 }
    const p = placeCard({ x: 1200, y: 650 }, c, win)
    expect(p).toEqual({ left: 1200 - 18 - 700, top: 650 - 18 - 300 })
    expect(inside(p, c)).toBe(true)
  })
  it('is clamped into the window when neither side has room', () => {
    const c = { width: 760, height: 600 }
    for (const x of [10, 640, 1270])
      for (const y of [10, 360, 710]) expect(inside(placeCard({ x, y }, c, win), c), `${x},${y}`).toBe(true)
  })
})

/**
 * Where a hover card goes: below and right of the pointer, else flipped to the side that has
 * room, and always wholly inside the window (a card larger than the window starts at its
 * margin and scrolls). Pure: sizes in, position out.
 */
export interface CardPlace {
  left: number
  top: number
}

const GAP = 18
const MARGIN = 8

function axis(at: number, size: number, room: number): number {
  if (at + GAP + size <= room - MARGIN) return at + GAP
  if (at - GAP - size >= MARGIN) return at - GAP - size
  return Math.max(MARGIN, Math.min(room - MARGIN - size, at + GAP))
}

export function placeCard(pointer: { x: number; y: number }, card: { width: number; height: number }, window: { width: number; height: number }): CardPlace {
  return { left: axis(pointer.x, card.width, window.width), top: axis(pointer.y, card.height, window.height) }
}

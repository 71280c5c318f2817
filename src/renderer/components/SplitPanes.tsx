/**
 * Two panes with a draggable, keyboard-accessible divider. The code comes first: side by side
 * on wide workspaces, stacked (code above, table below) on narrower ones, so the code keeps
 * at least 100 characters at 1280 pixels. The divider's place is remembered per arrangement.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react'

export type SplitArrangement = 'auto' | 'side' | 'stacked'

/** Below this workspace width the panes stack (side by side, the code would get < ~100 columns). */
export const SIDE_BY_SIDE_MIN_WIDTH = 1500

interface Props {
  first: ReactNode
  second: ReactNode
  /** auto: side by side when the workspace is wide enough, else stacked. */
  arrangement: SplitArrangement
  /** localStorage key for the divider's position in each arrangement. */
  storageKey: string
  /** Share of the first pane, 0..1. */
  defaultFraction?: number
  testId?: string
}

interface Saved {
  side: number
  stacked: number
}

function load(key: string, fraction: number): Saved {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? 'null') as Partial<Saved> | null
    const ok = (n: unknown) => (typeof n === 'number' && n >= 0.15 && n <= 0.9 ? n : fraction)
    if (v && typeof v === 'object') return { side: ok(v.side), stacked: ok(v.stacked) }
  } catch {
    // a damaged preference is just forgotten
  }
  return { side: fraction, stacked: fraction }
}

const clamp = (n: number) => Math.min(0.9, Math.max(0.15, n))

export function SplitPanes({ first, second, arrangement, storageKey, defaultFraction = 0.64, testId }: Props) {
  const box = useRef<HTMLDivElement>(null)
  const [saved, setSaved] = useState(() => load(storageKey, defaultFraction))
  const [width, setWidth] = useState(0)
  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    setWidth(el.clientWidth)
    const ro = new ResizeObserver(() => setWidth(el.clientWidth))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])
  useEffect(() => {
    try {
      localStorage.setItem(storageKey, JSON.stringify(saved))
    } catch {
      // storage full or disabled: the layout still works for this visit
    }
  }, [saved, storageKey])

  const stacked = arrangement === 'stacked' || (arrangement === 'auto' && width > 0 && width < SIDE_BY_SIDE_MIN_WIDTH)
  const fraction = stacked ? saved.stacked : saved.side
  const setFraction = useCallback((f: number) => setSaved((s) => ({ ...s, [stacked ? 'stacked' : 'side']: clamp(f) })), [stacked])

  const onPointerDown = (e: React.PointerEvent<HTMLDivElement>) => {
    const el = box.current
    if (!el) return
    e.preventDefault()
    const handle = e.currentTarget
    handle.setPointerCapture(e.pointerId)
    const rect = el.getBoundingClientRect()
    const move = (ev: PointerEvent) => setFraction(stacked ? (ev.clientY - rect.top) / rect.height : (ev.clientX - rect.left) / rect.width)
    const up = () => {
      handle.removeEventListener('pointermove', move)
      handle.removeEventListener('pointerup', up)
    }
    handle.addEventListener('pointermove', move)
    handle.addEventListener('pointerup', up)
  }
  const onKeyDown = (e: React.KeyboardEvent) => {
    const step = e.shiftKey ? 0.1 : 0.02
    const grow = stacked ? 'ArrowDown' : 'ArrowRight'
    const shrink = stacked ? 'ArrowUp' : 'ArrowLeft'
    if (e.key === grow) setFraction(fraction + step)
    else if (e.key === shrink) setFraction(fraction - step)
    else if (e.key === 'Home') setFraction(0.15)
    else if (e.key === 'End') setFraction(0.9)
    else if (e.key === 'Enter') setFraction(defaultFraction)
    else return
    e.preventDefault()
  }

  return (
    <div ref={box} className={`split ${stacked ? 'stacked' : 'side'}`} style={{ ['--split' as string]: `${(fraction * 100).toFixed(1)}%` }} data-testid={testId}>
      <div className="split-first">{first}</div>
      <div
        className="split-handle"
        role="separator"
        tabIndex={0}
        aria-orientation={stacked ? 'horizontal' : 'vertical'}
        aria-valuemin={15}
        aria-valuemax={90}
        aria-valuenow={Math.round(fraction * 100)}
        aria-label="Resize the code and the table (arrow keys; Enter resets)"
        title="Drag, or focus and use the arrow keys; Enter resets"
        onPointerDown={onPointerDown}
        onKeyDown={onKeyDown}
        onDoubleClick={() => setFraction(defaultFraction)}
        data-testid={testId ? `${testId}-handle` : undefined}
      />
      <div className="split-second">{second}</div>
    </div>
  )
}

/** Tracks prefers-color-scheme so Monaco's theme follows the OS like the rest of the UI. */
import { useEffect, useState } from 'react'

const query = '(prefers-color-scheme: dark)'

export function useIsDark(): boolean {
  const [dark, setDark] = useState(() => window.matchMedia(query).matches)
  useEffect(() => {
    const mq = window.matchMedia(query)
    const on = (e: MediaQueryListEvent) => setDark(e.matches)
    mq.addEventListener('change', on)
    return () => mq.removeEventListener('change', on)
  }, [])
  return dark
}

/** This machine's caches as Cachegrind simulates them (the backend reads them once): the forms' default hierarchy. */
import { useEffect } from 'react'
import { create } from 'zustand'
import type { HostHierarchy } from '../../shared/domain'
import { errorMessage, stride } from './stride'

interface HostState {
  host: HostHierarchy | null
  error: string | null
  requested: boolean
  load(): void
}

export const useHost = create<HostState>((set, get) => ({
  host: null,
  error: null,
  requested: false,
  load() {
    if (get().requested) return
    set({ requested: true })
    stride()
      .hostHierarchy({})
      .then(
        (host) => set({ host, error: null }),
        (e: unknown) => set({ error: errorMessage(e) })
      )
  }
}))

/** The host hierarchy, asked for on first use; null until it arrives. */
export function useHostHierarchy(): HostHierarchy | null {
  const host = useHost((s) => s.host)
  useEffect(() => useHost.getState().load(), [])
  return host
}

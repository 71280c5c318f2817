/** This machine's caches as Cachegrind simulates them (the backend reads them once): the forms' default hierarchy. */
import { useEffect, useRef, useState } from 'react'
import { create } from 'zustand'
import type { HostHierarchy } from '../../shared/domain'
import { FALLBACK_LEVELS, hostDrafts, type CacheLevelDraft } from '../logic/cache-form'
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

/**
 * A form's cache levels: this machine's D1 and LL (as Cachegrind simulates them) until the user
 * (or an example) sets others; Cachegrind's defaults when the host's cannot be read. Null
 * until the host's arrive.
 */
export function useHostLevels(): {
  host: HostHierarchy | null
  hostError: string | null
  levels: CacheLevelDraft[] | null
  setLevels: (next: CacheLevelDraft[]) => void
} {
  const host = useHostHierarchy()
  const hostError = useHost((s) => s.error)
  const [levels, setLevelsState] = useState<CacheLevelDraft[] | null>(() => (host ? hostDrafts(host) : null))
  const edited = useRef(false)
  const setLevels = (next: CacheLevelDraft[]) => {
    edited.current = true
    setLevelsState(next)
  }
  useEffect(() => {
    if (edited.current) return
    if (host) setLevelsState(hostDrafts(host))
    else if (hostError) setLevelsState(FALLBACK_LEVELS)
  }, [host, hostError])
  return { host, hostError, levels, setLevels }
}

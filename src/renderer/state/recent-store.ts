/** The recent-sessions list (kept by the backend, per STRIDE_HOME). */
import { create } from 'zustand'
import type { RecentSession } from '../../shared/domain'
import { errorMessage, stride } from './stride'

interface RecentState {
  items: RecentSession[]
  loaded: boolean
  error: string | null
  load(): Promise<void>
}

export const useRecent = create<RecentState>((set) => ({
  items: [],
  loaded: false,
  error: null,
  async load() {
    try {
      const items = await stride().recentSessions({})
      set({ items, loaded: true, error: null })
    } catch (e) {
      set({ loaded: true, error: errorMessage(e) })
    }
  }
}))

/** Source texts fetched from the backend, cached per session and file. */
import { create } from 'zustand'
import type { SourceFile } from '../../shared/domain'
import { errorMessage, stride } from './stride'

export type SourceEntry =
  | { status: 'loading' }
  | { status: 'ready'; source: SourceFile }
  | { status: 'error'; error: string }

interface SourceState {
  entries: Record<string, SourceEntry>
  load(session: string, file: string): void
}

export const sourceKey = (session: string, file: string): string => `${session}\u0000${file}`

export const useSources = create<SourceState>((set, get) => ({
  entries: {},
  load(session, file) {
    const key = sourceKey(session, file)
    const cur = get().entries[key]
    if (cur && cur.status !== 'error') return
    set((s) => ({ entries: { ...s.entries, [key]: { status: 'loading' } } }))
    stride()
      .getSource({ session, file })
      .then(
        (source) => set((s) => ({ entries: { ...s.entries, [key]: { status: 'ready', source } } })),
        (e: unknown) => set((s) => ({ entries: { ...s.entries, [key]: { status: 'error', error: errorMessage(e) } } }))
      )
  }
}))

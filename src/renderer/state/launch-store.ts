/** Whether the launch dialog is open, and the bundled examples it offers. */
import { create } from 'zustand'
import type { ExampleProgram } from '../../shared/domain'
import { errorMessage, stride } from './stride'

interface LaunchState {
  open: boolean
  /** Example to preselect when the dialog opens (from the welcome screen). */
  initialExample: string | null
  examples: ExampleProgram[]
  examplesLoaded: boolean
  examplesError: string | null
  openDialog(example?: string): void
  closeDialog(): void
  loadExamples(): Promise<void>
}

export const useLaunch = create<LaunchState>((set, get) => ({
  open: false,
  initialExample: null,
  examples: [],
  examplesLoaded: false,
  examplesError: null,
  openDialog(example) {
    set({ open: true, initialExample: example ?? null })
    if (!get().examplesLoaded) void get().loadExamples()
  },
  closeDialog() {
    set({ open: false, initialExample: null })
  },
  async loadExamples() {
    try {
      const examples = await stride().listExamples({})
      set({ examples, examplesLoaded: true, examplesError: null })
    } catch (e) {
      set({ examplesLoaded: true, examplesError: errorMessage(e) })
    }
  }
}))

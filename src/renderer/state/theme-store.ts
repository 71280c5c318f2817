/**
 * Light or dark: the user's choice (kept in localStorage), or the OS's when "system". The
 * resolved theme goes on <html data-theme>, which the style tokens key off; Monaco and charts
 * read `resolved`.
 */
import { create } from 'zustand'
import { readChoice } from './stored-choice'

export type ThemeChoice = 'system' | 'light' | 'dark'
const KEY = 'stride.theme'
const query = '(prefers-color-scheme: dark)'

const stored = (): ThemeChoice => readChoice<ThemeChoice>(KEY, ['system', 'light', 'dark'], 'system')

function resolve(choice: ThemeChoice): 'light' | 'dark' {
  if (choice !== 'system') return choice
  return typeof window.matchMedia === 'function' && window.matchMedia(query).matches ? 'dark' : 'light'
}

interface ThemeState {
  choice: ThemeChoice
  resolved: 'light' | 'dark'
  setChoice(choice: ThemeChoice): void
}

export const useTheme = create<ThemeState>((set, get) => {
  const apply = (choice: ThemeChoice) => {
    const resolved = resolve(choice)
    document.documentElement.dataset.theme = resolved
    set({ choice, resolved })
  }
  // Follow the OS while the choice is "system".
  if (typeof window.matchMedia === 'function')
    window.matchMedia(query).addEventListener('change', () => {
      if (get().choice === 'system') apply('system')
    })
  const initial = stored()
  document.documentElement.dataset.theme = resolve(initial)
  return {
    choice: initial,
    resolved: resolve(initial),
    setChoice(choice) {
      try {
        if (choice === 'system') localStorage.removeItem(KEY)
        else localStorage.setItem(KEY, choice)
      } catch {
        // Storage can be unavailable (private mode); the choice still applies to this window.
      }
      apply(choice)
    }
  }
})

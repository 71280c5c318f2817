/** Whether the app is dark (the user's theme choice or the OS's), for Monaco and charts. */
import { useTheme } from '../state/theme-store'

export function useIsDark(): boolean {
  return useTheme((s) => s.resolved === 'dark')
}

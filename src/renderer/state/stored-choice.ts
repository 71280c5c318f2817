/**
 * A user's choice among a few values, remembered in localStorage. Storage that is disabled,
 * full or holding something else just falls back: the choice still applies for this visit.
 */
export function readChoice<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  try {
    const v = localStorage.getItem(key)
    return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : fallback
  } catch {
    return fallback
  }
}

export function writeChoice(key: string, value: string): void {
  try {
    localStorage.setItem(key, value)
  } catch {
    // not remembered, still applied
  }
}

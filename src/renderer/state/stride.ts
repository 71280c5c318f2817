/**
 * The one handle on the backend for all stores. `getStrideApi()` picks the Electron
 * preload bridge or the web-mode WebSocket client; views never call it directly.
 */
import { getStrideApi } from '../api'
import type { StrideApi } from '../../shared/api'

let api: StrideApi | null = null

export function stride(): StrideApi {
  api ??= getStrideApi()
  return api
}

/** The user-facing line of an error. Electron prefixes IPC errors with plumbing; drop it. */
export function errorMessage(e: unknown): string {
  const raw = e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e)
  return raw.replace(/^Error invoking remote method '[^']*':\s*(\w*Error:\s*)?/, '').trim() || 'Unknown error.'
}

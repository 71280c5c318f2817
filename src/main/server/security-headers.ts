/**
 * The headers every response of the app carries, in web mode and (the CSP) in Electron.
 * The app loads nothing remote: scripts, styles, fonts and workers all come from itself.
 */

/** Monaco needs blob: workers and data: fonts; the UI uses inline style attributes. */
const BASE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "worker-src 'self' blob:",
  "img-src 'self' data:",
  "font-src 'self' data:"
]

/** Web mode: the page also talks to the backend over the loopback WebSocket bridge. */
export const CONTENT_SECURITY_POLICY = [...BASE_POLICY, "connect-src 'self' ws://127.0.0.1:*"].join('; ')

/** The desktop window talks to the backend over IPC only: no network connection at all. */
export const DESKTOP_CONTENT_SECURITY_POLICY = [...BASE_POLICY, "connect-src 'self'"].join('; ')

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // The app is never meant to be framed or to leak its tokenised URL to anyone.
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin'
}

/**
 * The per-run access token of web mode. Anyone on the machine can reach 127.0.0.1, so the
 * token (printed only to the terminal that ran `stride serve`) is what keeps other local
 * users and web pages out.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'

export function createToken(): string {
  return randomBytes(24).toString('base64url')
}

/** Constant-time comparison, so response timing does not reveal a prefix of the token. */
export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Cookies are not isolated by port, so two servers on one machine need distinct names. */
export function cookieName(port: number): string {
  return `stride_token_${port}`
}

export function sessionCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

/** The token a request carries: `?token=` wins (first load), else the cookie. */
export function requestToken(
  url: URL,
  cookieHeader: string | undefined,
  port: number
): { token: string | null; fromQuery: boolean } {
  const fromQuery = url.searchParams.get('token')
  if (fromQuery !== null) return { token: fromQuery, fromQuery: true }
  return { token: readCookie(cookieHeader, cookieName(port)), fromQuery: false }
}

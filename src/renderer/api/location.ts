/**
 * Where the web-mode API lives and which token opens it. `stride serve` prints a URL with
 * `?token=`; the token is remembered for the tab so in-app navigation and reloads without
 * it keep working (the server's cookie covers those as well).
 */
export const TOKEN_STORAGE_KEY = 'stride.token'

export interface TokenStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

export function resolveToken(search: string, store: TokenStore | null): string | null {
  const fromUrl = new URLSearchParams(search).get('token')
  try {
    if (fromUrl) {
      store?.setItem(TOKEN_STORAGE_KEY, fromUrl)
      return fromUrl
    }
    return store?.getItem(TOKEN_STORAGE_KEY) ?? null
  } catch {
    // Storage can be disabled (privacy settings); the URL token or the cookie still work.
    return fromUrl
  }
}

export const CLIENT_STORAGE_KEY = 'stride.client'

/**
 * This tab's client id: the server sends a job's events to the tab that started it, also
 * after a reconnection or a reload (sessionStorage lives as long as the tab).
 */
export function tabClientId(store: TokenStore | null, fresh: () => string = () => crypto.randomUUID()): string {
  try {
    const known = store?.getItem(CLIENT_STORAGE_KEY)
    if (known) return known
    const id = fresh()
    store?.setItem(CLIENT_STORAGE_KEY, id)
    return id
  } catch {
    return fresh()
  }
}

export function apiUrl(location: { protocol: string; host: string }, token: string | null, client: string | null = null): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:'
  const params = new URLSearchParams()
  if (token) params.set('token', token)
  if (client) params.set('client', client)
  const text = params.toString()
  const query = text ? `?${text}` : ''
  return `${scheme}//${location.host}/api${query}`
}

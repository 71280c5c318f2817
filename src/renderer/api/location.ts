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

export function apiUrl(location: { protocol: string; host: string }, token: string | null): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:'
  const query = token ? `?token=${encodeURIComponent(token)}` : ''
  return `${scheme}//${location.host}/api${query}`
}

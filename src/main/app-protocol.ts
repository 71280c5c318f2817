/**
 * The desktop app serves its built renderer from its own scheme (`stride://app/…`) instead of
 * file://: the page gets a real origin, so `'self'` in the CSP means the app and nothing on
 * disk, and no file next to the bundle can be reached by a crafted relative URL.
 */
import { isAbsolute, join, normalize, relative, sep } from 'node:path'

export const APP_SCHEME = 'stride'
export const APP_HOST = 'app'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`

/**
 * The file under `rendererDir` that an app URL names, or null when the URL is not the app's
 * or would leave the folder (`..`, encoded separators, absolute paths).
 */
export function appFileFor(url: string, rendererDir: string): string | null {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return null
  let path: string
  try {
    path = decodeURIComponent(parsed.pathname)
  } catch {
    return null
  }
  if (path.includes('\0') || path.includes('\\')) return null
  const rel = normalize(path === '/' || path === '' ? 'index.html' : path.replace(/^\/+/, ''))
  if (rel.startsWith('..') || isAbsolute(rel)) return null
  const file = join(rendererDir, rel)
  const back = relative(rendererDir, file)
  return back === '' || back.startsWith('..') || back.split(sep).includes('..') ? null : file
}

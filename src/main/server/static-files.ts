/**
 * Serving the built renderer: a fixed root, no way out of it, and an SPA fallback to
 * index.html for client-side routes.
 */
import { realpath, stat } from 'node:fs/promises'
import { extname, isAbsolute, relative, resolve } from 'node:path'

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm'
}

export function mimeType(file: string): string {
  return MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
}

export type StaticLookup =
  | { kind: 'file'; path: string; size: number; spaFallback: boolean }
  | { kind: 'bad-request' }
  | { kind: 'forbidden' }
  | { kind: 'not-found' }

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

async function regularFile(path: string): Promise<number | null> {
  try {
    const s = await stat(path)
    return s.isFile() ? s.size : null
  } catch {
    return null
  }
}

/**
 * Map a URL pathname (still percent-encoded) to a file under `root`, which must already be
 * a real (symlink-free) absolute path. Paths with no extension that match no file are
 * client-side routes and get index.html.
 */
export async function lookupStatic(root: string, rawPathname: string): Promise<StaticLookup> {
  let decoded: string
  try {
    decoded = decodeURIComponent(rawPathname)
  } catch {
    return { kind: 'bad-request' }
  }
  // NUL and backslashes have no business in our asset names; refusing them closes the
  // Windows-separator and truncation tricks outright.
  if (decoded.includes('\0') || decoded.includes('\\')) return { kind: 'bad-request' }
  const relativePath = decoded.replace(/^\/+/, '')
  const candidate = resolve(root, relativePath === '' ? 'index.html' : relativePath)
  if (!inside(root, candidate)) return { kind: 'forbidden' }

  let target = candidate
  let spaFallback = false
  let size = await regularFile(target)
  if (size === null) {
    if (extname(candidate) !== '') return { kind: 'not-found' }
    target = resolve(root, 'index.html')
    spaFallback = true
    size = await regularFile(target)
    if (size === null) return { kind: 'not-found' }
  }
  // A symlink inside the build must not lead outside it either.
  const real = await realpath(target).catch(() => null)
  if (real === null) return { kind: 'not-found' }
  if (!inside(root, real)) return { kind: 'forbidden' }
  return { kind: 'file', path: real, size, spaFallback }
}

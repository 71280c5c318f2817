/**
 * Where things live, for every runtime: the built bundles run from out/main (Node or
 * Electron), tests run from src/ through vitest. Everything is found from the project root.
 */
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'

let root: string | null = null

/** The folder holding package.json (walks up from this file, wherever it was bundled to). */
export function projectRoot(): string {
  if (root) return root
  let dir = __dirname
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'resources'))) return (root = dir)
    const up = dirname(dir)
    if (up === dir) throw new Error(`cannot find the Stride project root above ${__dirname}`)
    dir = up
  }
}

/** A built worker bundle (electron-vite emits out/main/<name>.js). */
export type WorkerName = 'trace-worker' | 'task-worker'

export function workerPath(name: WorkerName): string {
  const file = join(projectRoot(), 'out', 'main', `${name}.js`)
  if (!existsSync(file)) throw new Error(`${file} is missing; run "npm run build" first`)
  return file
}

/** The bundled examples and their build/ folder. STRIDE_EXAMPLES overrides (tests use a copy). */
export function examplesDir(): string {
  return process.env.STRIDE_EXAMPLES ? resolve(process.env.STRIDE_EXAMPLES) : join(projectRoot(), 'resources', 'examples')
}

/** Per-user state: recent sessions and new sessions. STRIDE_HOME overrides (tests isolate with it). */
export function strideHome(): string {
  return resolve(process.env.STRIDE_HOME || join(homedir(), '.stride'))
}

export function sessionsDir(): string {
  return join(strideHome(), 'sessions')
}

/** Rebuildable per-user data (the built Valgrind tool, system objects' symbols). STRIDE_CACHE overrides. */
export function cacheDir(): string {
  return process.env.STRIDE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'stride')
}

/** The first PATH entry holding `name`, as the shell would run it, or null. */
export function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name)
    if (dir && existsSync(p)) return p
  }
  return null
}

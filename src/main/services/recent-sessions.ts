/** The recent-sessions list, kept as JSON in the Stride home folder. */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { RecentSession } from '../../shared/domain'
import { strideHome } from '../paths'

const LIMIT = 20

function file(): string {
  return join(strideHome(), 'recent.json')
}

function load(): Array<Omit<RecentSession, 'exists'>> {
  try {
    const data = JSON.parse(readFileSync(file(), 'utf8')) as unknown
    return Array.isArray(data) ? (data as Array<Omit<RecentSession, 'exists'>>).filter((r) => typeof r?.path === 'string') : []
  } catch {
    return [] // missing or damaged: start a new list rather than fail
  }
}

export function recentSessions(): RecentSession[] {
  return load().map((r) => ({ ...r, exists: existsSync(r.path) }))
}

export function rememberSession(path: string, program: string): void {
  const full = resolve(path)
  const list = [{ path: full, program, openedAt: new Date().toISOString() }, ...load().filter((r) => r.path !== full)].slice(0, LIMIT)
  mkdirSync(strideHome(), { recursive: true })
  // Write then rename, so a crash never leaves half a file.
  const tmp = file() + '.tmp'
  writeFileSync(tmp, JSON.stringify(list, null, 2))
  renameSync(tmp, file())
}

/**
 * Which runs of a function-scoped trace were warmed by the whole program (CacheContext,
 * src/shared/cache-context.ts). Kept in the meta table (`warmedRuns`: the run ids, written with
 * the trace's first run), so no schema change: a session without the key, or from an older
 * Stride, has none, and its function-scoped runs read as cold, function-only, which they are.
 */
import type { CacheContext } from '../../shared/cache-context'
import type { RunId } from '../../shared/domain'
import type { Db } from './open-db'

export const WARMED_RUNS_KEY = 'warmedRuns'

function metaJson(db: Db, key: string): unknown {
  const text = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key)
  if (typeof text !== 'string') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** The session's runs warmed by the whole program. */
export function warmedRuns(db: Db): Set<number> {
  const v = metaJson(db, WARMED_RUNS_KEY)
  return new Set(Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [])
}

/** What warmed each run's cache: null for every run of a whole-program trace. */
export function cacheContexts(db: Db): (run: RunId | number) => CacheContext | null {
  const functions = metaJson(db, 'functions')
  if (!Array.isArray(functions) || functions.length === 0) return () => null
  const warmed = warmedRuns(db)
  return (run) => (warmed.has(run) ? 'whole-program' : 'function-only')
}

/**
 * The optional tables' definitions (derived data a session may or may not have), kept apart
 * so that schema.ts can compare a session's copies with them without loading their modules.
 */

/** statics-cache.ts: created by the first writer; one row. Blobs are little-endian typed arrays, texts a JSON array. */
export const STATICS_CACHE_TABLE = `CREATE TABLE IF NOT EXISTS statics_cache (
  id INTEGER PRIMARY KEY CHECK (id = 1), format INTEGER NOT NULL, identity TEXT NOT NULL, points INTEGER NOT NULL,
  texts TEXT NOT NULL, kinds BLOB NOT NULL, variable BLOB NOT NULL, function BLOB NOT NULL,
  file BLOB NOT NULL, line BLOB NOT NULL, loop BLOB NOT NULL,
  touch_point BLOB NOT NULL, touch_variable BLOB NOT NULL, touch_accesses BLOB NOT NULL)`

/** shadow-counts.ts: per (run, level), the advisor's shadow counts. */
export const SHADOW_COUNTS_TABLE = `CREATE TABLE IF NOT EXISTS shadow_counts (
  run INTEGER NOT NULL, level TEXT NOT NULL, format INTEGER NOT NULL,
  size REAL NOT NULL, assoc REAL NOT NULL, line_size REAL NOT NULL, events REAL NOT NULL, points INTEGER NOT NULL,
  set_count INTEGER NOT NULL, forgetful INTEGER NOT NULL, shadow BLOB NOT NULL, cold BLOB NOT NULL, sets BLOB,
  PRIMARY KEY (run, level))`

export const OPTIONAL_TABLES: Readonly<Record<string, string>> = { statics_cache: STATICS_CACHE_TABLE, shadow_counts: SHADOW_COUNTS_TABLE }

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

/** first-level-store.ts: a first run's first cache level, its stream block by block and its state (one row). */
export const FIRST_LEVEL_STREAM_TABLE = `CREATE TABLE IF NOT EXISTS first_level_stream (seq INTEGER PRIMARY KEY, data BLOB NOT NULL)`
export const FIRST_LEVEL_STATE_TABLE = `CREATE TABLE IF NOT EXISTS first_level_state (
  id INTEGER PRIMARY KEY CHECK (id = 1), format INTEGER NOT NULL, run INTEGER NOT NULL, identity TEXT NOT NULL,
  header TEXT NOT NULL, data BLOB NOT NULL)`

export const OPTIONAL_TABLES: Readonly<Record<string, string>> = {
  statics_cache: STATICS_CACHE_TABLE,
  shadow_counts: SHADOW_COUNTS_TABLE,
  first_level_stream: FIRST_LEVEL_STREAM_TABLE,
  first_level_state: FIRST_LEVEL_STATE_TABLE
}

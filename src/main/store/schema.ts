/** The session schema, versioned with `PRAGMA user_version`; each migration moves one step. */
import { StrideError } from '../../shared/api'
import type { Db } from './open-db'
import { ROLLUP_TABLE, rollUpAllRuns } from './rollup'

/**
 * Each entry moves the schema one version up; the version is the list's length. Append new
 * steps at the end (re-read this file first: others may have appended); never edit or
 * reorder a landed step, since session files on disk were written with it.
 */
const MIGRATIONS: Array<(db: Db) => void> = [
  // 0 -> 1
  (db) => {
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE modules (
        id INTEGER PRIMARY KEY, path TEXT NOT NULL, base INTEGER NOT NULL,
        start INTEGER NOT NULL, end INTEGER NOT NULL);
      CREATE TABLE points (
        idx INTEGER PRIMARY KEY, pc INTEGER NOT NULL, kind INTEGER NOT NULL,
        accesses INTEGER NOT NULL DEFAULT 0, first_address INTEGER,
        ref_id TEXT, file TEXT, line INTEGER, function TEXT, module TEXT, variable TEXT);
      CREATE INDEX points_line ON points(file, line);
      CREATE TABLE trace_chunks (
        seq INTEGER PRIMARY KEY, first_event INTEGER NOT NULL, events INTEGER NOT NULL,
        codec TEXT NOT NULL, data BLOB NOT NULL);
      CREATE TABLE runs (
        run INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL,
        config TEXT NOT NULL, accesses INTEGER NOT NULL);
      CREATE TABLE run_levels (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, level INTEGER NOT NULL,
        name TEXT NOT NULL, reads INTEGER NOT NULL, writes INTEGER NOT NULL,
        read_misses INTEGER NOT NULL, write_misses INTEGER NOT NULL, PRIMARY KEY (run, level));
      CREATE TABLE run_points (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, point INTEGER NOT NULL,
        level INTEGER NOT NULL, reads INTEGER NOT NULL, writes INTEGER NOT NULL,
        read_misses INTEGER NOT NULL, write_misses INTEGER NOT NULL, PRIMARY KEY (run, point, level));
    `)
  },
  // 1 -> 2: data structures, for naming addresses and for layout filters (padding).
  (db) => {
    db.exec(`
      CREATE TABLE variables (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('global', 'stack', 'heap', 'unknown')),
        start INTEGER,           -- runtime address of the first byte (null when not placed)
        size INTEGER,            -- bytes
        type TEXT,               -- C type as the debug information spells it, e.g. double [1000][1000]
        element_size INTEGER,    -- bytes of one innermost element (8 for double[][])
        dims TEXT,               -- JSON array of dimension extents, outermost first, or null
        module TEXT,             -- object file that defines it
        alloc_site TEXT          -- heap: where it was allocated (file:line), else null
      );
      CREATE INDEX variables_start ON variables(start);
    `)
  },
  // 2 -> 3: source/data correlation: what each access point touched and how it reads in source.
  (db) => {
    db.exec(`
      ALTER TABLE points ADD COLUMN source_expr TEXT;  -- e.g. B[j][i], C[ind[j]], p->next
      ALTER TABLE points ADD COLUMN disasm TEXT;       -- the instruction, e.g. movsd (%rax),%xmm0
      ALTER TABLE variables ADD COLUMN reads INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE variables ADD COLUMN writes INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE point_variables (
        point INTEGER NOT NULL, variable INTEGER NOT NULL, accesses INTEGER NOT NULL,
        PRIMARY KEY (point, variable));
    `)
  },
  // 3 -> 4: hierarchy simulator metrics (METRIC section 8): per point x level temporal/spatial
  // hits and spatial-reuse inputs, per-level counters, evictor matrices, miss timelines.
  // Level indexes run over the caches, then the TLB levels (runs.config says which is which).
  (db) => {
    db.exec(`
      CREATE TABLE run_point_metrics (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, point INTEGER NOT NULL,
        level INTEGER NOT NULL, temporal_hits INTEGER NOT NULL, spatial_hits INTEGER NOT NULL,
        used_bytes INTEGER NOT NULL, line_ends INTEGER NOT NULL, evictions INTEGER NOT NULL,
        PRIMARY KEY (run, point, level));
      CREATE TABLE run_level_metrics (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, level INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('cache', 'tlb')), writebacks INTEGER NOT NULL,
        prefetches INTEGER NOT NULL, useful_prefetches INTEGER NOT NULL,
        back_invalidations INTEGER NOT NULL, evictions INTEGER NOT NULL, PRIMARY KEY (run, level));
      -- evictee/evictor: a point index, or -2 = prefetcher, -3 = write-back traffic.
      CREATE TABLE run_evictors (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, level INTEGER NOT NULL,
        evictee INTEGER NOT NULL, evictor INTEGER NOT NULL, count INTEGER NOT NULL,
        PRIMARY KEY (run, level, evictee, evictor));
      CREATE TABLE run_timeline (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, level INTEGER NOT NULL,
        variable TEXT NOT NULL, interval INTEGER NOT NULL, misses INTEGER NOT NULL,
        PRIMARY KEY (run, level, variable, interval));
      ALTER TABLE runs ADD COLUMN timeline_interval INTEGER;
    `)
  },
  // 4 -> 5: stream metrics computed at the end of a trace (JSON documents, see stream-store.ts):
  // METRIC section 9 per access point, Mohan's statistics and Table 1 advice per function.
  (db) => {
    db.exec(`
      CREATE TABLE point_streams (point INTEGER PRIMARY KEY, metrics TEXT NOT NULL);
      CREATE TABLE function_streams (function TEXT PRIMARY KEY, stats TEXT NOT NULL);
    `)
  },
  // 5 -> 6: loop nests of the traced program (back edges of its control flow) and, per access
  // point, its innermost loop.
  (db) => {
    db.exec(`
      CREATE TABLE loops (
        id INTEGER PRIMARY KEY, function TEXT NOT NULL,
        start INTEGER NOT NULL, end INTEGER NOT NULL,   -- runtime addresses, header .. last back edge
        depth INTEGER NOT NULL, parent INTEGER,          -- parent: enclosing loop id or null
        file TEXT, line INTEGER);                        -- the header's source line
      CREATE TABLE point_loops (point INTEGER PRIMARY KEY, loop INTEGER NOT NULL);
    `)
  },
  // 6 -> 7 (query slices): indexes for slice queries that
  // select data structures or functions, so they read only the matching points' rows.
  (db) => {
    db.exec(`
      CREATE INDEX IF NOT EXISTS points_variable ON points(variable);
      CREATE INDEX IF NOT EXISTS points_function ON points(function);
    `)
  },
  // 7 -> 8: per-run roll-up by data structure x function x loop x level (store/rollup.ts), so
  // slice queries over the whole run read a few rows instead of one per point and level.
  (db) => {
    db.exec(ROLLUP_TABLE)
    rollUpAllRuns(db)
  }
]

export const SCHEMA_VERSION = MIGRATIONS.length

/** Brings a database up to SCHEMA_VERSION; refuses files from a newer Stride. */
export function migrate(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version > SCHEMA_VERSION)
    throw new StrideError(
      `This session was written by a newer Stride (schema v${version}, this build reads up to v${SCHEMA_VERSION}); update Stride to open it.`,
      'malformed-session'
    )
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      MIGRATIONS[v]!(db)
      db.pragma(`user_version = ${v + 1}`)
    })()
  }
}

/** Checks that an existing file is a Stride session before anything reads it. */
export function assertSession(db: Db, path: string): void {
  let version: number
  try {
    version = db.pragma('user_version', { simple: true }) as number
    db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name='trace_chunks'").get()
  } catch {
    throw new StrideError(`${path} is not a Stride session (not a SQLite database); open a .stride file written by "stride trace".`, 'malformed-session')
  }
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").get()
  if (version === 0 || !hasMeta)
    throw new StrideError(`${path} is not a Stride session (no Stride tables); open a .stride file written by "stride trace".`, 'malformed-session')
  if (version > SCHEMA_VERSION) migrate(db) // throws the "newer Stride" message
}

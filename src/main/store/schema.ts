/** The session schema, versioned with `PRAGMA user_version`; each migration moves one step. */
import { StrideError } from '../../shared/errors'
import { openMemoryDb, type Db } from './open-db'
import { OPTIONAL_TABLES } from './optional-tables'
import { allRows } from './rows'

/**
 * Each entry moves the schema one version up; the version is the list's length. Append new
 * steps at the end (re-read this file first: others may have appended); never edit or
 * reorder a landed step, since session files on disk were written with it. Every step is
 * frozen SQL written inline: a step never calls today's code, so an old session upgrades the
 * same way whatever that code becomes.
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
  // Backfilled for older runs here; kept only where it is 4x smaller than the run's rows.
  (db) => {
    db.exec(`
      CREATE TABLE run_rollup (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, level INTEGER NOT NULL,
        variable TEXT, function TEXT, loop INTEGER,
        reads INTEGER NOT NULL, writes INTEGER NOT NULL, read_misses INTEGER NOT NULL, write_misses INTEGER NOT NULL,
        temporal_hits INTEGER, spatial_hits INTEGER, evictions INTEGER);
      CREATE INDEX run_rollup_run ON run_rollup(run);
      INSERT INTO run_rollup
        SELECT rp.run, rp.level, p.variable, p.function, pl.loop,
               SUM(rp.reads), SUM(rp.writes), SUM(rp.read_misses), SUM(rp.write_misses),
               SUM(m.temporal_hits), SUM(m.spatial_hits), SUM(m.evictions)
          FROM run_points rp
          JOIN points p ON p.idx = rp.point
          LEFT JOIN point_loops pl ON pl.point = rp.point
          LEFT JOIN run_point_metrics m ON m.run = rp.run AND m.point = rp.point AND m.level = rp.level
         GROUP BY rp.run, rp.level, p.variable, p.function, pl.loop;
      DELETE FROM run_rollup WHERE run IN (
        SELECT r.run FROM (SELECT run, COUNT(*) AS n FROM run_rollup GROUP BY run) r
          JOIN (SELECT run, COUNT(*) AS n FROM run_points GROUP BY run) q ON q.run = r.run
         WHERE r.n * 4 > q.n);
    `)
  },
  // 8 -> 9 (crash safety and integrity): a CRC-32 per trace chunk (null in older sessions,
  // which are read unchecked), and the number of access points a chunk may name, so a
  // session cut short still decodes with exactly the points committed with its chunks.
  (db) => {
    db.exec(`
      ALTER TABLE trace_chunks ADD COLUMN crc32 INTEGER;
      ALTER TABLE trace_chunks ADD COLUMN point_count INTEGER;
    `)
  },
  // 9 -> 10 (per-access attribution): roll-ups now split a point that touched several data
  // structures among them; the stored ones credited each point's dominant structure, so they
  // go, and slices over those runs are answered from the per-point rows (same figures as
  // `report --by variable`).
  (db) => {
    db.exec(`DELETE FROM run_rollup;`)
  },
  // 10 -> 11 (run labels): the run a run was made from (a what-if's run; null when none was
  // recorded, as for every older run) and the label the user gave it (null: derived from its
  // configuration against that run, shared/run-labels.ts).
  (db) => {
    db.exec(`
      ALTER TABLE runs ADD COLUMN parent INTEGER;
      ALTER TABLE runs ADD COLUMN label TEXT;
    `)
  },
  // 11 -> 12 (sessions that cannot lie): a chunk checksum bound to the chunk's place
  // (`checksum`: CRC-32 over its sequence number, first event, count, point count, codec and
  // bytes; store/integrity.ts), and `integrity`: which checks the session's chunks carry
  // ('chunks': 'bound' for sessions written from v12 on; 'crc32' for older ones whose writer
  // stored a plain CRC-32 per chunk, v9 on; 'none' before) and, written at a trace's end,
  // digests of the point table ('points') and the meta table ('meta').
  (db) => {
    db.exec(`
      ALTER TABLE trace_chunks ADD COLUMN checksum INTEGER;
      CREATE TABLE integrity (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO integrity (key, value)
        SELECT 'chunks', CASE WHEN EXISTS (SELECT 1 FROM trace_chunks WHERE crc32 IS NOT NULL OR point_count IS NOT NULL) THEN 'crc32' ELSE 'none' END;
    `)
  },
  // 12 -> 13 (issue 50): `trace_chunks.threads`, the chunk's accesses as runs of one thread each
  // (store/thread-runs.ts: little-endian u32 pairs (thread, count) after a CRC-32 binding them
  // to the chunk's place). Null where the recorder gave no thread (Lackey) and in chunks
  // written before.
  (db) => {
    db.exec(`ALTER TABLE trace_chunks ADD COLUMN threads BLOB;`)
  },
  // 13 -> 14 (one truth per data structure): `chunk_variables`, beside each trace chunk every
  // access's data structure (variables.id) as the trace attributed it (store/chunk-variables.ts
  // has the format; CRC-32 over seq and bytes), and `run_touches`, a run's counts per (point,
  // data structure, level) as the simulator counted them access by access. Older sessions have
  // neither: their runs split a point's figures by access shares, as before.
  (db) => {
    db.exec(`
      CREATE TABLE chunk_variables (
        seq INTEGER PRIMARY KEY, format INTEGER NOT NULL, data BLOB NOT NULL, checksum INTEGER NOT NULL);
      CREATE TABLE run_touches (
        run INTEGER NOT NULL REFERENCES runs(run) ON DELETE CASCADE, point INTEGER NOT NULL,
        variable INTEGER NOT NULL, level INTEGER NOT NULL,
        reads INTEGER NOT NULL, writes INTEGER NOT NULL, read_misses INTEGER NOT NULL, write_misses INTEGER NOT NULL,
        temporal_hits INTEGER NOT NULL, spatial_hits INTEGER NOT NULL, used_bytes INTEGER NOT NULL,
        line_ends INTEGER NOT NULL, evictions INTEGER NOT NULL,
        PRIMARY KEY (run, point, variable, level));
    `)
  },
  // 14 -> 15 (heap arrays get dimensions): where a data structure's `dims` came from: 'type'
  // (its debug type: an array, or the pointer a heap block is assigned to, `double (*A)[N]`)
  // or 'strides' (inferred from a reference walking a heap block with a constant stride).
  // Null in older sessions, whose dims all came from array types.
  (db) => {
    db.exec(`ALTER TABLE variables ADD COLUMN dims_from TEXT;`)
  },
  // 15 -> 16 (a session opens on stored views): `view_cache`, what a session shows on opening
  // (the advisor's diagnosis, the exact data-structure ranking), derived at the trace's end
  // from its first run and read back only under the recording, run and Stride build it was
  // derived under (view-cache.ts has the rules). Derived, never the only copy: empty in
  // upgraded sessions, which compute their views when asked, as before.
  (db) => {
    db.exec(`
      CREATE TABLE view_cache (
        run INTEGER NOT NULL, view TEXT NOT NULL, key TEXT NOT NULL,
        format INTEGER NOT NULL, identity TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (run, view, key));
    `)
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
    try {
      db.transaction(() => {
        MIGRATIONS[v]!(db)
        db.pragma(`user_version = ${v + 1}`)
      })()
    } catch (e) {
      // e.g. a file whose version number was set back: its tables are newer than it says.
      throw new StrideError(`The session is malformed: its schema (v${version}) does not match its tables (${(e as Error).message}); re-trace the program.`, 'malformed-session')
    }
  }
}

/** Tables every session has from v1 on; without them nothing can be read. */
const REQUIRED_TABLES = ['meta', 'modules', 'points', 'trace_chunks', 'runs', 'run_levels', 'run_points']

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
  const tables = new Set((allRows(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"), { name: 'text' })).map((r) => r.name))
  const missing = REQUIRED_TABLES.filter((t) => !tables.has(t))
  if (missing.length > 0)
    throw new StrideError(`${path} is a malformed session: it has no ${missing.join(', ')} table${missing.length > 1 ? 's' : ''}; re-trace the program.`, 'malformed-session')
  if (version > SCHEMA_VERSION) migrate(db) // throws the "newer Stride" message
  assertExpectedSchema(db, path, version)
}

/** SQLite's own tables, which any database may have. */
const SQLITE_TABLES = new Set(['sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4'])

interface SchemaShape {
  /** Per table, its columns as `pragma table_xinfo` describes them, one string. */
  tables: Map<string, string>
  /** Per index, its table and its SQL (null: made by SQLite for a key). */
  indexes: Map<string, string>
}

const shapes = new Map<number, SchemaShape>()

function shapeOf(db: Db): SchemaShape {
  const entries = allRows(db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' OR type = 'index'"), { type: 'text', name: 'text', tbl_name: 'text', sql: 'text?' })
  const tables = new Map<string, string>()
  const indexes = new Map<string, string>()
  for (const e of entries) {
    if (e.type === 'table') {
      if (/^\s*CREATE\s+VIRTUAL/i.test(e.sql ?? '')) tables.set(e.name, 'virtual')
      else tables.set(e.name, JSON.stringify(db.prepare('SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?)').raw(true).all(e.name)))
    } else if (e.type === 'index') indexes.set(e.name, `${e.tbl_name}: ${(e.sql ?? '').replace(/\s+/g, ' ')}`)
    else tables.set(e.name, e.type) // a view or a trigger: never expected
  }
  return { tables, indexes }
}

/** The schema a session of `version` has: the migrations up to it, and the optional tables. */
function expectedShape(version: number): SchemaShape {
  let shape = shapes.get(version)
  if (shape) return shape
  const db = openMemoryDb()
  try {
    for (let v = 0; v < version; v++) MIGRATIONS[v]!(db)
    for (const sql of Object.values(OPTIONAL_TABLES)) db.exec(sql)
    shape = shapeOf(db)
  } finally {
    db.close()
  }
  shapes.set(version, shape)
  return shape
}

/**
 * A session file is user input and never runs SQL of its own: one whose schema has a trigger,
 * a view, a table or index Stride does not write, or a table whose columns differ from those
 * of its schema version is refused before anything reads or upgrades it.
 */
export function assertExpectedSchema(db: Db, path: string, version: number): void {
  if (version < 1 || version > SCHEMA_VERSION) return
  const refuse = (what: string) => {
    throw new StrideError(`${path} is not a session as Stride writes it (${what}): damaged or altered, it is not opened; re-trace the program.`, 'malformed-session')
  }
  const kinds = allRows(db.prepare("SELECT type, name FROM sqlite_master WHERE type NOT IN ('table', 'index')"), { type: 'text', name: 'text' })
  if (kinds.length > 0) refuse(`it has a ${kinds[0]!.type} "${cut(kinds[0]!.name)}"`)
  const expected = expectedShape(version)
  const found = shapeOf(db)
  for (const [name, columns] of found.tables) {
    if (SQLITE_TABLES.has(name)) continue
    const want = expected.tables.get(name)
    if (want === undefined) refuse(`it has a table "${cut(name)}" a v${version} session does not`)
    // An optional table is created when first written: absent is fine, present it must match.
    if (want !== columns) refuse(`its table ${cut(name)} does not have the columns of a v${version} session`)
  }
  for (const name of expected.tables.keys())
    if (!found.tables.has(name) && !(name in OPTIONAL_TABLES)) refuse(`it has no table ${name}, which a v${version} session has`)
  for (const [name, def] of found.indexes) {
    const want = expected.indexes.get(name)
    if (want === undefined) refuse(`it has an index "${cut(name)}" a v${version} session does not`)
    if (want !== def) refuse(`its index ${cut(name)} is not the one a v${version} session has`)
  }
}

/** A name from the file, bounded for the message. */
function cut(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

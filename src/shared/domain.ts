/**
 * Domain types shared by the backend, the CLI and the renderer.
 * Plain data only: everything here crosses IPC/WebSocket boundaries as JSON.
 */

/** How an instruction touches memory. Modify = read then write of the same bytes (x86 `add [m], r`). */
export type AccessKind = 'read' | 'write' | 'modify'
export const ACCESS_KIND_CODE: Record<AccessKind, number> = { read: 0, write: 1, modify: 2 }
export const ACCESS_KINDS: readonly AccessKind[] = ['read', 'write', 'modify']

export type ReplacementPolicy = 'lru'

/** One cache level as the user describes it; sizes in bytes. */
export interface CacheLevelConfig {
  name: string
  size: number
  assoc: number
  lineSize: number
  policy: ReplacementPolicy
}

export interface HierarchyConfig {
  /** Innermost first (L1, then L2 ...). */
  levels: CacheLevelConfig[]
  /** Count accesses exactly as Valgrind's Cachegrind counts its D1 (see simulate/README.md). */
  cachegrindCompatible: boolean
}

/** A static instruction that accesses memory, with the kind of access it makes. */
export interface AccessPoint {
  /** Index into the session's point table (dense, 0-based). */
  index: number
  /** METRIC-style reference name, e.g. `A_Read_0`. */
  id: string
  /** Runtime instruction address, hex string (0x...). */
  pc: string
  kind: AccessKind
  file: string | null
  line: number | null
  function: string | null
  /** Object file the instruction belongs to. */
  module: string | null
  /** Data symbol most of its accesses fall in (globals only for now), or null. */
  variable: string | null
  accesses: number
}

export interface FunctionSymbol {
  name: string
  /** Link-time address, hex. */
  address: string
  size: number
  file: string | null
  line: number | null
}

export interface ProgramSymbols {
  program: string
  hasDebugInfo: boolean
  /** Set when line information is unavailable; says how to fix it. */
  debugInfoHint: string | null
  functions: FunctionSymbol[]
}

export interface ExampleProgram {
  name: string
  title: string
  description: string
  /** Built binary (absolute path). */
  program: string
  source: string
  /** Functions worth tracing in this example. */
  functions: string[]
  /** The cache the example was written for (the paper's configuration), innermost first. */
  suggestedCache: CacheLevelConfig[]
  built: boolean
}

export type TraceStopReason =
  | 'completed'
  | 'max-events'
  | 'time-limit'
  | 'cancelled'
  | 'target-crashed'
  | 'target-exited-early'
  | 'error'

export interface SessionInfo {
  path: string
  schemaVersion: number
  program: string
  args: string[]
  backend: 'valgrind'
  createdAt: string
  functions: string[]
  events: number
  partial: boolean
  stopReason: TraceStopReason
  stopMessage: string | null
  storedBytes: number
  hasDebugInfo: boolean
  debugInfoHint: string | null
  points: number
  runs: RunSummary[]
}

export interface RunSummary {
  run: number
  createdAt: string
  config: HierarchyConfig
  accesses: number
}

export interface LevelTotals {
  name: string
  reads: number
  writes: number
  readMisses: number
  writeMisses: number
}

export interface LineLevelStats {
  readMisses: number
  writeMisses: number
}

export interface LineStats {
  file: string
  line: number
  function: string | null
  reads: number
  writes: number
  levels: Record<string, LineLevelStats>
}

export interface ReferenceLevelStats {
  hits: number
  misses: number
  readMisses: number
  writeMisses: number
}

export interface ReferenceStats {
  id: string
  pc: string
  kind: AccessKind
  file: string | null
  line: number | null
  function: string | null
  variable: string | null
  reads: number
  writes: number
  levels: Record<string, ReferenceLevelStats>
}

export interface FunctionStats {
  function: string
  reads: number
  writes: number
  levels: Record<string, LineLevelStats>
}

export interface VariableStats {
  variable: string
  reads: number
  writes: number
  levels: Record<string, LineLevelStats>
}

/** A stored simulation run, in the shapes of CLI.md. */
export interface RunReport {
  run: number
  config: HierarchyConfig
  levels: LevelTotals[]
  lines: LineStats[]
  references: ReferenceStats[]
}

export interface RecentSession {
  path: string
  program: string
  openedAt: string
  exists: boolean
}

export interface SourceFile {
  path: string
  text: string
}

/**
 * Domain types shared by the backend, the CLI and the renderer.
 * Plain data only: everything here crosses IPC/WebSocket boundaries as JSON.
 */
import type { z } from 'zod'
import type { cacheLevelSchema, hierarchySchema, layoutFilterSchema, loopTransformSchema, objectsOptionsSchema, replacementPolicy, samplingSchema, tlbLevelSchema } from './schemas'
import type { CacheContext } from './cache-context'

// Index aliases, as in the Firefox Profiler (IndexIntoFuncTable ...): plain numbers at run
// time, named for the table they index so a signature says which number it wants.
/** An access point: `points.idx` in a session, the point column of a trace chunk. */
export type PointIndex = number
/** A stored simulation run (`runs.run`), 1 and up. */
export type RunId = number
/** A level of a run's hierarchy: its caches innermost first, then its TLB levels. */
export type LevelIndex = number
/** A data structure of a session (`variables.id`). */
export type VariableId = number
/** A loop nest (`loops.id`). */
export type LoopId = number

/** How an instruction touches memory. Modify = read then write of the same bytes (x86 `add [m], r`). */
export type AccessKind = 'read' | 'write' | 'modify'
export const ACCESS_KIND_CODE: Record<AccessKind, number> = { read: 0, write: 1, modify: 2 }
export const ACCESS_KINDS: readonly AccessKind[] = ['read', 'write', 'modify']

// The configurations users give are described once, by their schemas (shared/schemas.ts);
// these types are read off them (type-only imports: nothing here loads zod).
export type ReplacementPolicy = z.output<typeof replacementPolicy>
/** Every member of a union, as a runtime list: a member missing from `list` is a type error. */
const everyOf =
  <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : { missing: Exclude<T, L[number]> })): readonly T[] =>
    list
export const REPLACEMENT_POLICIES = everyOf<ReplacementPolicy>()(['lru', 'fifo', 'plru', 'random'])
export type CacheLevelConfig = z.output<typeof cacheLevelSchema>
export type WritePolicy = NonNullable<CacheLevelConfig['writePolicy']>
export type PrefetchPolicy = NonNullable<CacheLevelConfig['prefetch']>
export type TlbLevelConfig = z.output<typeof tlbLevelSchema>
export type LayoutFilter = z.output<typeof layoutFilterSchema>
export type LoopTransform = z.output<typeof loopTransformSchema>
export type HierarchyConfig = z.output<typeof hierarchySchema>
export type SamplingMode = z.output<typeof samplingSchema>
export type ObjectsOptions = z.output<typeof objectsOptionsSchema>
export type ObjectMethodKind = ObjectsOptions['methods'][number]
export type SamplingIntervalKind = ObjectsOptions['sampleInterval']

/** A static instruction that accesses memory, with the kind of access it makes. */
export interface AccessPoint {
  /** Index into the session's point table (dense, 0-based). */
  index: number
  /**
   * METRIC-style reference name, stable across sessions of one build: `A_Read_30@sumfunc+0x14`
   * (shared/reference-names.ts); sessions recorded before keep theirs (`A_Read_0`).
   */
  id: string
  /** Runtime instruction address, hex string (0x...). */
  pc: string
  kind: AccessKind
  file: string | null
  line: number | null
  function: string | null
  /** Object file the instruction belongs to. */
  module: string | null
  /** The data structure most of its accesses fall in (global, stack local or heap context), or null. */
  variable: string | null
  accesses: number
  /** The expression it evaluates in source, e.g. `B[j][i]` (METRIC's SourceRef); the line when unknown. */
  sourceExpr?: string | null
  /** The instruction, e.g. `movsd (%rax),%xmm0`. */
  disasm?: string | null
  /** METRIC section 9 stream metrics from the compressor (absent for sessions without them). */
  streams?: PointStreams
}

/** METRIC section 9, per access point: its RSDs (regular runs of three or more). */
export interface PointStreams {
  /** Predictable accesses (inside an RSD) / accesses. */
  regularity: number
  meanStreamLength: number
  /** Number of RSDs. */
  streams: number
  distinctLengths: number
  distinctStrides: number
  /** Most frequent first (at most 32), fractions of the RSDs. */
  lengths: Array<{ length: number; fraction: number }>
  strides: Array<{ stride: number; fraction: number }>
}

/** One row of Mohan et al. Table 1 that a function's statistics match, and why. */
export interface StreamAdvice {
  optimization: string
  rule: string
  evidence: string
}

/** Mohan et al. section 2, for a traced function as a whole. */
export interface FunctionStreams {
  function: string
  references: number
  spatialRegularity: number
  streams: number
  scalarStreams: number
  lengthBuckets: { '4-32': number; '32-128': number; '128-16384': number; '>16384': number }
  meanLength: number
  lengthDeviation: number
  /** Bytes; `meanStrideElements` divides each stream's stride by its access size. */
  meanStride: number
  meanStrideElements: number
  advice: StreamAdvice[]
}

export interface FunctionSymbol {
  /** The symbol as linked (mangled for C++): what --functions is given. */
  name: string
  /** Demangled C++ name (`ns::f(int)`), shown by the pickers; absent for C. */
  demangled?: string
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

/**
 * The host's data caches as Cachegrind simulates them by default: its D1 and LL (the unified
 * cache of the highest level), read from CPUID or sysfs with Cachegrind's adjustments, or
 * Cachegrind's own defaults when neither can be read.
 */
export interface HostHierarchy {
  /** D1 then LL, LRU, write-back and write-allocate (as Cachegrind). */
  config: HierarchyConfig
  /** Where the figures come from: CPUID (as Cachegrind reads it), sysfs, or Cachegrind's defaults. */
  source: 'cpuid' | 'sysfs' | 'defaults'
  /** The levels in a few words: `D1 32K 8-way 64B, LL 256M 1-way 64B`. */
  summary: string
  /** One line: where the figures come from and what was adjusted, for people. */
  note: string
  /** Whether Cachegrind on this host simulates these same D1 and LL. */
  asCachegrind: boolean
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
  /** Not built yet, but this machine can build it (a C compiler is there): picking it builds it. */
  buildable: boolean
  /** One line when it is not built: that picking it builds it, or why it cannot be built here (and the fix). */
  buildNote: string | null
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
  backend: 'valgrind' | 'frida'
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
  /** How the traced program ended (absent in sessions recorded before Stride knew). */
  programExit?: { code: number | null; signal: string | null } | null
  /** What recorded it: Stride's Valgrind tool, Lackey (the fallback), or Frida. */
  recorder?: string | null
  /** Why the slow fallback recorded this session (Stride's Valgrind tool could not be used). */
  recorderNote?: string | null
  /** Threads whose accesses the trace holds (interleaved in the order they ran). */
  threads?: number | null
  /** Mohan's stream statistics per traced function (absent for sessions without them). */
  functionStreams?: FunctionStreams[]
  /** They are computed on request (computeFunctionStreams) and have not been yet. */
  functionStreamsPending?: boolean
}

export interface RunSummary {
  run: RunId
  createdAt: string
  config: HierarchyConfig
  accesses: number
  /** The run this one was made from (a what-if's run); null when none was recorded. */
  parent: RunId | null
  /** The label the user gave it; null: derived. */
  name: string | null
  /** What tells it apart (shared/run-labels.ts): `name`, else what differs from its parent or the first run. */
  label: string
  /** As RunReport's: what warmed the cache of a function-scoped trace's run (absent: a whole-program trace). */
  cacheContext?: CacheContext
}

export interface LevelTotals {
  name: string
  reads: number
  writes: number
  readMisses: number
  writeMisses: number
  /** Absent in runs stored before these were counted. 'tlb' levels follow the caches. */
  kind?: 'cache' | 'tlb'
  /** Dirty lines written to the next level (write-back). */
  writebacks?: number
  prefetches?: number
  /** Prefetched lines a demand access used before they left. */
  usefulPrefetches?: number
  /** Inner-level lines invalidated because this (inclusive) level evicted them. */
  backInvalidations?: number
  evictions?: number
}

export interface LineLevelStats {
  readMisses: number
  writeMisses: number
  hits?: number
  misses?: number
  temporalHits?: number
  spatialHits?: number
  /** Bytes used / (line size x lines that left the cache), METRIC section 8. */
  spatialReuse?: number
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
  temporalHits?: number
  spatialHits?: number
  spatialReuse?: number
  /** Lines this reference brought in that left the cache (evicted, or still resident at the end). */
  lineEnds?: number
  usedBytes?: number
}

/** One evictor of a reference's lines: `by` is a reference id, `prefetch` or `write-back`. */
export interface EvictorEntry {
  level: string
  by: string
  count: number
  /** count / all evictions of this reference's lines at that level. */
  fraction: number
}

export interface ReferenceStats {
  id: string
  pc: string
  kind: AccessKind
  file: string | null
  line: number | null
  function: string | null
  variable: string | null
  sourceExpr?: string | null
  disasm?: string | null
  /** METRIC section 9 stream metrics of the access point, when the session has them. */
  streams?: PointStreams
  reads: number
  writes: number
  levels: Record<string, ReferenceLevelStats>
  evictors?: EvictorEntry[]
  /**
   * The data structures this reference's accesses fell in, with how many each, when more than
   * one (one function called on several arrays, two threads on two arrays); `variable` is the
   * one with most.
   */
  touches?: Array<{
    variable: string
    accesses: number
    /**
     * This data structure's part of the reference's figures as the simulator counted them,
     * access by access (runs of sessions that store each access's data structure); absent,
     * the roll-ups divide the reference's figures by access shares.
     */
    reads?: number
    writes?: number
    levels?: Record<string, ReferenceLevelStats>
  }>
}

export interface FunctionStats {
  function: string
  reads: number
  writes: number
  levels: Record<string, LineLevelStats>
}

/** A loop of the traced program, found from the back edges of its control flow. */
export interface LoopInfo {
  id: LoopId
  function: string
  /** Runtime addresses of the header and of the last back edge, hex. */
  start: string
  end: string
  depth: number
  /** Enclosing loop id, or null for an outermost loop. */
  parent: LoopId | null
  /** The header's source location, when known. */
  file: string | null
  line: number | null
  /** References whose innermost loop this is. */
  references: string[]
}

/** A loop's accesses and misses, including those of the loops nested in it. */
export interface LoopStats {
  loop: LoopId
  /** e.g. `do_mult loop@mult.c:25`. */
  name: string
  function: string
  depth: number
  parent: LoopId | null
  file: string | null
  line: number | null
  reads: number
  writes: number
  levels: Record<string, LineLevelStats>
}

export type VariableKind = 'global' | 'stack' | 'heap' | 'unknown'

/** Where a data structure's dimensions came from (shared/dims-text.ts says it to the user). */
export type DimsSource = 'type' | 'strides'

/** A data structure of the traced run (globals, stack locals, heap allocation contexts, unknown). */
export interface VariableInfo {
  name: string
  kind: VariableKind
  /** Runtime address (heap: the context's last block), hex; null when it has none. */
  start: string | null
  size: number | null
  /** C type as the debug information spells it, e.g. `double [1000][1000]`. */
  type: string | null
  elementSize: number | null
  /** Array extents, outermost first. */
  dims: number[] | null
  /**
   * Where `dims` came from: the debug type (an array; a heap block's pointer, `double (*A)[N]`)
   * or inferred from a reference's constant stride over a heap block; null without dims.
   */
  dimsFrom: DimsSource | null
  /** Heap: the allocating line (file:line); stack: the function. */
  allocSite: string | null
  reads: number
  writes: number
}

export interface VariableStats {
  variable: string
  kind?: VariableKind
  type?: string | null
  dims?: number[] | null
  dimsFrom?: DimsSource | null
  size?: number | null
  allocSite?: string | null
  reads: number
  writes: number
  levels: Record<string, LineLevelStats>
  /** Which variables' references evicted this variable's lines. */
  evictors?: EvictorEntry[]
  /**
   * Some of its figures come from references that touch several data structures: their
   * accesses are split exactly (each access to the structure it touched), their misses and
   * evictions by the same shares.
   */
  apportioned?: boolean
}

/** Misses per variable over fixed intervals of accesses (Buck section 3.5, Figure 5). */
export interface MissTimeline {
  level: string
  interval: number
  /** variable -> misses per interval (index = interval number). */
  series: Record<string, number[]>
}

/** A stored simulation run, in the shapes of CLI.md. */
export interface RunReport {
  run: RunId
  config: HierarchyConfig
  levels: LevelTotals[]
  lines: LineStats[]
  references: ReferenceStats[]
  timelines?: MissTimeline[]
  /** The session's data structures (absent for sessions traced before correlation). */
  variables?: VariableInfo[]
  /** The traced program's loop nests (absent for sessions traced before loops were found). */
  loops?: LoopInfo[]
  /**
   * The recording this run is of: reports with one key share everything no run changes, so a
   * client holding one completes another's figures (getRunFigures). Absent while unfinished.
   */
  staticsKey?: string
  /**
   * A function-scoped trace's run: its cache warmed by the whole program (the trace's first
   * simulation, fed the rest of the program's accesses) or cold, function-only (every run
   * replaying the stored trace). Absent for a whole-program trace.
   */
  cacheContext?: CacheContext
}

/** What a run changes of a reference: its figures, the reference found by its id. */
export type ReferenceFigures = Pick<ReferenceStats, 'id' | 'reads' | 'writes' | 'levels' | 'evictors'>

/** What no run changes of a reference (its point, names, stream metrics, data structures touched). */
export type StaticReference = Omit<ReferenceStats, 'reads' | 'writes' | 'levels' | 'evictors'>

/**
 * A run's report without what no run changes (getRunFigures): each reference's figures only,
 * completed by report-figures.ts from an earlier report of the same recording. A what-if of a
 * whole-program session sends about half the bytes of its RunReport.
 */
export interface RunFigures {
  run: RunId
  config: HierarchyConfig
  levels: LevelTotals[]
  lines: LineStats[]
  references: ReferenceFigures[]
  timelines?: MissTimeline[]
  /** The recording the references belong to: the ReferenceStatics with this key complete them. */
  staticsKey: string
}

/** The parts of a recording's reports that no run changes, as a client keeps them from one report. */
export interface ReferenceStatics {
  staticsKey: string
  /** The report's references without their figures. */
  references: StaticReference[]
  variables?: VariableInfo[]
  loops?: LoopInfo[]
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

// ---- Advisor (METRIC Figure 8, Mohan Table 1) -------------------------------------------

/** A what-if the advisor can run in one click (through the renderer's runWhatIf). */
export type AdviceAction =
  /** Layout filters to add to the run's own (SIGMA 3.2 external padding). */
  | { kind: 'layout'; label: string; layout: LayoutFilter[] }
  /** The run's cache levels with one changed (a prefetcher, a bigger cache). */
  | { kind: 'levels'; label: string; levels: CacheLevelConfig[] }
  /** The run's data TLB levels with one changed (more entries, bigger pages). */
  | { kind: 'tlb'; label: string; tlb: TlbLevelConfig[] }
  /** Loop transforms to add to the run's own (simulate/transform/: interchange, tiling). */
  | { kind: 'transform'; label: string; transforms: LoopTransform[] }
  /**
   * A multi-core what-if (`stride simulate --cores N --interleave Q` with these layout filters):
   * false sharing's padding, shown on cores. The one-hierarchy run cannot show coherence misses,
   * so it is tried from the command line (`command`), not as a run of the session.
   */
  | { kind: 'cores'; label: string; cores: number; interleave: number; layout: LayoutFilter[]; command: string }

export type AdviceDiagnosis =
  | 'conflict'
  | 'capacity'
  | 'large-stride'
  | 'streaming'
  | 'irregular'
  | 'pollution'
  | 'low-spatial-reuse'
  | 'pointer-chase'
  | 'gather'
  | 'tlb'
  /** Threads write different bytes of shared cache lines (issue 50). */
  | 'false-sharing'
  /** Threads write the same bytes (padding cannot help). */
  | 'true-sharing'

/** Hill & Smith's three Cs of one reference's misses at a level: the advisor's set-mapping check. */
export interface MissClassCount {
  /** First touches of a line. */
  compulsory: number
  /** Misses a fully associative LRU cache of the same size has too (the footprint does not fit). */
  capacity: number
  /** Misses only the set mapping causes (the run missed, the fully associative cache did not). */
  conflict: number
  /** How many of the level's sets the reference's lines fall in (null: not counted). */
  sets: number | null
}

export interface MissClasses {
  level: string
  /** Sets of the level. */
  sets: number
  /** What fed the fully associative shadow: every access (first level) or the previous level's misses. */
  source: string
  /** The references with misses at the level (one not listed had none). */
  byReference: Record<string, MissClassCount>
}

/** One diagnosis for a hot reference (or a cycle of them), with the numbers behind it. */
export interface AdviceItem {
  diagnosis: AdviceDiagnosis
  /** Reference ids concerned (a cycle lists all its members). */
  references: string[]
  /** Variables they touch, as named in the session. */
  variables: string[]
  /** "conflict.c:30" per distinct line, or the pc. */
  locations: string[]
  /** Misses of those references at the level, and their share of the level's misses. */
  misses: number
  share: number
  /** e.g. "Conflict misses: evictor cycle A ↔ B ↔ C". */
  title: string
  /** The facts that triggered it, each a short clause with its number. */
  evidence: string[]
  /** What to do, e.g. "pad the arrays; try +1 KiB between them". */
  suggestion: string
  /** Where the rule comes from, e.g. "METRIC Fig. 8: evictor references". */
  rules: string[]
  action?: AdviceAction
  /** The code change the suggestion names, simulated (a loop interchange or tiling), beside `action`. */
  codeAction?: Extract<AdviceAction, { kind: 'transform' }>
}

export interface RunAdvice {
  run: RunId
  level: string
  /** Most misses first. */
  items: AdviceItem[]
  /** Hot references looked at (those covering most of the level's misses). */
  examined: number
  totalMisses: number
  /** The three Cs per reference at the level (absent when the trace could not be replayed). */
  classes?: MissClasses
  /** Why the classes are absent (the trace could not be replayed): no miss is then called a conflict. */
  classesMissing?: string
}

// ---- Frida attach -----------------------------------------------------------------------

/** A running process, for the attach picker. */
export interface ProcessEntry {
  pid: number
  name: string
  user: string
  /** Command line, arguments joined by spaces ("[name]" for kernel threads). */
  command: string
  /** Stride itself (attaching to it is refused). */
  self: boolean
}

export interface ProcessList {
  processes: ProcessEntry[]
  /** Where the list came from: Frida's enumeration, or /proc when Frida is not installed. */
  source: 'frida' | 'proc'
  /** Why Frida cannot trace on this machine (the install hint), or null when it can. */
  fridaMissing: string | null
}

export interface ProcessModule {
  path: string
  /** Load base (runtime address of file offset 0), hex. */
  base: string
  size: number
  /** The process's executable. */
  main: boolean
}

/** A function of a process's module, with a guess at how hot it is. */
export interface ProcessFunction extends FunctionSymbol {
  /** Deepest loop nest inside (0: no loop); deeper nests first in the list. */
  loopDepth: number
}

export interface ProcessInspection {
  pid: number
  name: string
  /** The module whose functions are listed (the executable unless asked otherwise). */
  module: string
  hasDebugInfo: boolean
  debugInfoHint: string | null
  modules: ProcessModule[]
  functions: ProcessFunction[]
}

/** Per chosen function, during an attach trace (progress events). */
export interface FunctionProgress {
  name: string
  /** Sampled calls so far. */
  samples: number
  /** Accesses recorded by the function's own instructions. */
  events: number
  /** Sampling has ended for it (max samples reached or converged). */
  done: boolean
}

// --- Data-structure miss ranking (Buck's sampling and n-way search, Rutar's approximate attribution) ---

/** How misses are attributed to data structures (see src/main/analysis/objects/README.md). */
export const OBJECT_METHOD_KINDS = everyOf<ObjectMethodKind>()(['exact', 'sample', 'search', 'approx-raw', 'approx-loop', 'approx-skid'])

export interface ObjectEstimate {
  name: string
  kind: VariableKind
  misses: number
  /** Of all misses at the level (exact) or of all estimated misses. */
  fraction: number
  /** 1 = most misses. */
  rank: number
}

export interface ObjectMethodCost {
  /** Misses sampled (sampling, approximate). */
  samples?: number
  /** Counter interrupts (n-way search). */
  interrupts?: number
  /** Sampling interval actually used (the prime for N). */
  period?: number
  converged?: boolean
  /** Wall time of this method's share of the pass. */
  seconds: number
}

export interface ObjectMethodResult {
  /** As the command line spells it: exact, sample:113, search:10, approx:loop. */
  method: string
  kind: ObjectMethodKind
  objects: ObjectEstimate[]
  /** Spearman's rho against exact over exact's top 10 (null for exact itself). */
  rho: number | null
  cost: ObjectMethodCost
  /** Anything the user should know (stream ended before the search converged, files not found). */
  notes: string[]
  /** The part of the run the method saw, in one sentence with its numbers. */
  coverage?: string
  /** Why a data structure exact ranks is absent from this method's list (by name). */
  absent?: Record<string, string>
}

export interface ObjectsReport {
  session: string
  run: RunId
  level: string
  accesses: number
  totalMisses: number
  exact: ObjectMethodResult
  methods: ObjectMethodResult[]
  /** Hardware cache-miss sampling on this machine (perf record): supported, or why not. */
  perf: { supported: boolean; reason: string | null }
}

// --- Query slices (SIGMA section 3.3) ---------------------------------------------------

export type SliceReduction = 'sum' | 'min' | 'max'

/**
 * A sub-space of the statistics cube data structures x code regions x metrics, reduced.
 * Values are null where a ratio has no accesses to divide by (or min/max saw no cell).
 */
export interface QuerySlice {
  run: RunId
  /** The query in canonical notation, e.g. `[{A,B},{sumfunc},{misses}]` (shareable). */
  query: string
  reduction: SliceReduction
  /** Row labels: data items (`*` expanded to every data structure), in query order. */
  data: string[]
  /** Column labels: code items (`*` expanded to every function), in query order. */
  code: string[]
  /** Metric labels, e.g. `misses`, `L2.loads`. */
  metrics: string[]
  /** Per metric: a ratio (derived from counts), not a count. */
  derived: boolean[]
  /** [data][code][metric]. */
  cells: Array<Array<Array<number | null>>>
  /** [data][metric], reduced over the code items. */
  byData: Array<Array<number | null>>
  /** [code][metric], reduced over the data items. */
  byCode: Array<Array<number | null>>
  /** [metric], reduced over the whole selection. */
  total: Array<number | null>
  /** True when array sections were answered by re-simulating the trace (exact per element). */
  resimulated: boolean
  elapsedMs: number
}

// ---- Files -------------------------------------------------------------------------------

export type FilePurpose = 'program' | 'session'

export interface DirectoryEntry {
  name: string
  path: string
  kind: 'dir' | 'file'
  /** Executable by the user (a program to trace). */
  executable: boolean
  /** A Stride session (*.stride). */
  session: boolean
  size: number
}

/** One folder as the file browser shows it; `roots` are its places (shortcuts, not limits). */
export interface DirectoryListing {
  path: string
  /** The folder above, or null at a root. */
  parent: string | null
  roots: Array<{ label: string; path: string }>
  entries: DirectoryEntry[]
  /** More entries than shown (the listing stops at a fixed number). */
  truncated: boolean
}

/** A typed path, checked by the backend (symlinks resolved). */
export interface CheckedPath {
  path: string
  kind: 'dir' | 'file'
}

export interface FileChoice {
  /** False where the app has no dialog of its own (web mode): use listDirectory. */
  available: boolean
  /** The chosen file, or null when cancelled. */
  path: string | null
}


// ---- Threads: shared cache lines (issue 50) -------------------------------------------------

/** Coherence misses split by cause: the other thread wrote the bytes touched (true) or only others of the line (false). */
export interface SharingFigures {
  trueSharing: number
  falseSharing: number
}

/** Bytes of a shared line one thread touched the same way. */
export interface SharedFootprint {
  /** e.g. `counters[1]` or `counters[1]+8`: the element (and offset in it) these bytes are; null outside every data structure. */
  field: string | null
  offset: number
  size: number
  accesses: number
  reads: number
  writes: number
  /** The reference that made its first access, and its source expression. */
  reference: string
  sourceExpr: string | null
  /** Its bytes overlap bytes another thread writes in the line. */
  trueSharing: boolean
}

/**
 * A cache line several threads access, one at least writing, found whatever the schedule.
 * `recorded`: coherence misses in the recorded order (each thread on its own core, unbounded
 * caches); `fineEstimate`: the threads finely interleaved (an upper bound); `interleavings`:
 * accesses by a thread other than the line's previous accessor, in the recorded order.
 */
export interface SharedLineInfo {
  address: string
  variables: string[]
  threads: Array<{ thread: number; reads: number; writes: number; footprints: SharedFootprint[] }>
  interleavings: number
  recorded: SharingFigures
  fineEstimate: SharingFigures
  verdict: 'false-sharing' | 'true-sharing'
}

/** The shared lines of one data structure, summed. */
export interface SharedStructure {
  variable: string
  lines: number
  recorded: SharingFigures
  fineEstimate: SharingFigures
  references: string[]
  threads: number[]
  /** Fields (`name[i]+off`) each thread touched on the shared lines. */
  fieldsByThread: Array<{ thread: number; fields: string[] }>
  interleavings: number
}

/** getSharedLines: a session's lines shared by threads at one line size. */
export interface SharedLines {
  lineSize: number
  /** The session's threads (numbers as it records them). */
  threads: number[]
  /** Most estimated coherence misses first. */
  lines: SharedLineInfo[]
  variables: SharedStructure[]
  /** What `recorded` and `fineEstimate` are, in one sentence. */
  note: string
}

/** getThreadBreakdown: each reference's accesses per thread (exact, from the trace). */
export interface ThreadBreakdown {
  threads: number[]
  /** References with accesses, each thread that made some, ascending. */
  references: Array<{ reference: string; threads: Array<{ thread: number; accesses: number }> }>
}

/**
 * The zod schemas of the configurations users give (hierarchies, layout filters, sampling,
 * attach targets, ranking options): the one source of these types. src/shared/domain.ts
 * derives its types from them (type-only, so code that needs only the types, such as the
 * workers, loads no zod); src/shared/api.ts validates API input with them.
 */
import { z } from 'zod'

export const replacementPolicy = z.enum(['lru', 'fifo', 'plru', 'random'])
export const objectMethodKind = z.enum(['exact', 'sample', 'search', 'approx-raw', 'approx-loop', 'approx-skid'])

export const levelName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,15}$/, 'a level name like L1')
export const powerOfTwo = (what: string) =>
  z
    .number()
    .int()
    .positive()
    .refine((n) => (n & (n - 1)) === 0, `${what} must be a power of two`)

/**
 * One cache level as the user describes it; sizes in bytes. The optional fields default to
 * write-back, write-allocate, not inclusive, no prefetcher, seed 1 (see simulate/README.md).
 */
export const cacheLevelSchema = z
  .object({
    name: levelName,
    // The simulator keeps state for every line: a larger "cache" is a mistyped size.
    size: z.number().int().positive().max(2 ** 29, 'a cache level holds at most 512 MiB'),
    assoc: z.number().int().positive().max(1024),
    lineSize: powerOfTwo('line size').refine((n) => n >= 4 && n <= 4096, 'line size must be 4..4096 bytes'),
    policy: replacementPolicy.default('lru'),
    /** Seed of the random policy's generator (runs are reproducible). */
    seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
    writePolicy: z.enum(['write-back', 'write-through']).optional(),
    writeAllocate: z.boolean().optional(),
    /** Evicting a line here invalidates it in the levels inside this one. */
    inclusive: z.boolean().optional(),
    prefetch: z.enum(['none', 'next-line', 'stride']).optional()
  })
  .refine((l) => l.policy !== 'plru' || (l.assoc & (l.assoc - 1)) === 0, 'tree-PLRU needs a power-of-two associativity')
  .refine((l) => l.size % (l.assoc * l.lineSize) === 0, 'size must be a multiple of associativity x line size')
  .refine((l) => {
    const sets = l.size / (l.assoc * l.lineSize)
    return (sets & (sets - 1)) === 0
  }, 'the number of sets (size / (associativity x line size)) must be a power of two')

/** A data TLB level: `entries` translations of `pageSize`-byte pages. */
export const tlbLevelSchema = z
  .object({
    name: levelName,
    entries: z.number().int().positive().max(1 << 16, 'a TLB level holds at most 65,536 entries'),
    assoc: z.number().int().positive().max(1 << 16),
    pageSize: powerOfTwo('page size').refine((n) => n >= 256 && n <= 2 ** 30, 'page size must be 256 bytes..1 GiB'),
    policy: replacementPolicy.optional()
  })
  .refine((t) => t.entries % t.assoc === 0, 'entries must be a multiple of the associativity')
  .refine((t) => {
    const sets = t.entries / t.assoc
    return (sets & (sets - 1)) === 0
  }, 'the number of TLB sets (entries / associativity) must be a power of two')

const variableName = z.string().min(1).max(512)
/**
 * A what-if layout change (SIGMA 3.2), applied to addresses on their way into the simulator.
 * external: `variable` and everything laid out after it (same object file) move up `bytes`.
 * internal: dimension `dim` (0 = outermost, as `dims` lists them) of `variable` grows to
 * `extent`; `dims`/`elementSize` override what the session knows (needed when it does not).
 */
export const layoutFilterSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('external'), variable: variableName, bytes: z.number().int().min(0).max(2 ** 40) }).strict(),
  z
    .object({
      kind: z.literal('internal'),
      variable: variableName,
      dim: z.number().int().min(0).max(31),
      extent: z.number().int().positive().max(2 ** 40),
      order: z.enum(['row', 'column']).default('row'),
      dims: z.array(z.number().int().positive()).min(1).max(32).optional(),
      elementSize: z.number().int().positive().max(1 << 20).optional()
    })
    .strict()
])

/**
 * A code-change what-if (simulate/transform/): the loop whose header is at file:line (or the
 * loop around the innermost loop holding that line) and the loop directly inside it, swapped
 * (interchange) or tiled with tiles of `tile` iterations of each.
 */
const transformPlace = { file: z.string().min(1).max(4096), line: z.number().int().positive().max(2 ** 31) }
export const loopTransformSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('interchange'), ...transformPlace }).strict(),
  z.object({ kind: z.literal('tile'), ...transformPlace, tile: z.number().int().min(1).max(2 ** 31) }).strict()
])

export const hierarchySchema = z.object({
  /** Innermost first (L1, then L2 ...). */
  levels: z.array(cacheLevelSchema).min(1).max(8),
  /** Count accesses exactly as Valgrind's Cachegrind counts its D1 (see simulate/README.md). */
  cachegrindCompatible: z.boolean().default(false),
  /** Data TLB levels, innermost first (at most two). */
  tlb: z.array(tlbLevelSchema).max(2).optional(),
  layout: z.array(layoutFilterSchema).max(256).optional(),
  /** Loop transformations, applied to the trace before the layout filters. */
  transforms: z.array(loopTransformSchema).max(16).optional(),
  /** Accesses per interval of the per-variable miss timeline; null/absent: about 100 intervals. */
  timelineInterval: z.number().int().positive().nullable().optional()
})

// ---- Frida attach ----
/**
 * Mohan et al. section 4: how much of each chosen function is sampled. max-samples: its
 * instrumentation is removed after this many calls; periodic: traced for periodMs, then all
 * instrumentation off for intervalMs, repeatedly; convergence: a function stops being sampled
 * once its stream metrics change by less than threshold between samples.
 */
export const samplingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('complete') }).strict(),
  z.object({ kind: z.literal('max-samples'), samples: z.number().int().positive().max(1e9) }).strict(),
  z.object({ kind: z.literal('periodic'), periodMs: z.number().int().min(1).max(3_600_000), intervalMs: z.number().int().min(1).max(3_600_000) }).strict(),
  z.object({ kind: z.literal('convergence'), threshold: z.number().positive().max(10), minSamples: z.number().int().min(2).max(1e6).default(2) }).strict()
])
export const pid = z.number().int().min(1).max(2 ** 22)
export const attachTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('attach'), pid }).strict(),
  z.object({ kind: z.literal('spawn'), program: z.string().min(1).max(4096), args: z.array(z.string().max(4096)).max(256).default([]) }).strict()
])
/** The data-structure ranking's options (getObjects, `stride objects`). */
export const objectsOptionsSchema = z
  .object({
    /** Run whose hierarchy is simulated (null: the latest). */
    run: z.number().int().positive().nullable().default(null),
    /** Level name (null: the first cache level). */
    level: levelName.nullable().default(null),
    methods: z.array(objectMethodKind).min(1).max(6).default(['exact', 'sample', 'search', 'approx-raw', 'approx-loop', 'approx-skid']),
    /**
     * Sampling: 1 in N misses; the interval kind (prime: the next prime at or above N).
     * null: scaled to the run, about TARGET_SAMPLES samples (its stored misses at the level / 1000).
     */
    sampleEvery: z.number().int().min(1).max(1e9).nullable().default(null),
    sampleInterval: z.enum(['prime', 'random', 'regular']).default('prime'),
    /** n-way search: ways, stop threshold (share of misses), interval in accesses (null: about 1/500 of the trace). */
    ways: z.number().int().min(2).max(64).default(10),
    threshold: z.number().min(0).max(1).default(0.01),
    searchInterval: z.number().int().positive().max(1e12).nullable().default(null),
    /** Approximate: 1 instruction sample per N misses (1: every miss). */
    approxEvery: z.number().int().min(1).max(1e9).default(1),
    loopThreshold: z.number().min(0).max(1).default(0.75),
    /** Simulated skid moving each sample's line (mean, sigma in source lines); null: none. */
    skid: z.object({ mean: z.number().min(-50).max(50), sigma: z.number().min(0).max(50) }).strict().nullable().default(null),
    /** Where approximate samples come from. */
    approxSource: z.enum(['simulated', 'perf']).default('simulated')
  })
  .strict()

/**
 * The production `prsd-sequitur-v1`/`-v2`/`-v3` codec: the first stage (PRSD detector, loop folding,
 * successor chains and SEQUITUR, the structure and residue bytes, the stream metrics) and its decoder run in Stride's native
 * core (resources/native/core/src/codec); so does the second stage, brotli once per stream
 * with the reference's settings through the brotli Node's zlib uses, so the bytes are the ones
 * the TypeScript reference (prsd-codec.ts) writes; the decoder undoes both there too. Brotli's
 * memory stays with the core between chunks (src/codec/scratch.h). Batches cross as typed
 * arrays; the encoder's memory is fixed by its chunk size.
 */
import { nativeCore } from '../native/core'
import type { ChunkEncoder, StreamMetricsSource } from './chunk-encoder'
import { framed, prsdCodecName, secondStageSettings, PRSD_VERSION, splitChunk, type DecodedAccesses, type EncodeStats, type EncoderOptions, type PrsdVersion } from './prsd-codec'

export { PRSD_CODEC, PRSD_CODEC_V2, PRSD_CODEC_V3, PRSD_CODEC_V4 } from './prsd-codec'
import type { BrotliSetting } from './brotli-params'
import type { PointStreamMetrics } from './rsd-metrics'

/** Opaque handles to C memory (freed when collected). */
type Handle = { readonly __native: unique symbol }

/** The first stage's output for one chunk. */
interface FirstStage {
  structure: Buffer
  residue: Buffer | null
  descriptors: number
  irregular: number
  rules: number
}

interface CodecExports {
  codecEncoderCreate(maxChunkEvents: number, version: PrsdVersion): Handle
  codecEncode(e: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointCount: number): FirstStage
  codecEncodeAsync(e: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointCount: number): Promise<FirstStage>
  codecEncoderMetrics(e: Handle): MetricsRows
  codecMetricsCreate(): Handle
  codecMetricsAdd(m: Handle, count: number, points: Uint32Array, addresses: Float64Array, pointCount: number): void
  codecMetricsFinish(m: Handle): MetricsRows
  /** The count a chunk's compressed structure declares, or -1; throws when its brotli stream is damaged. */
  codecChunkCount(structure: Uint8Array): number
  /** Both stages undone: the chunk's two brotli streams as stored, and the count they must declare. */
  codecDecodeChunk(structure: Uint8Array, residue: Uint8Array, pointCount: number, count: number, format: PrsdVersion): DecodedAccesses
  codecDecodeChunkAsync(structure: Uint8Array, residue: Uint8Array, pointCount: number, count: number, format: PrsdVersion): Promise<DecodedAccesses>
  codecDecodeChunkAsync(structure: Uint8Array, residue: Uint8Array, pointCount: number, count: number, format: PrsdVersion, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array): Promise<DecodedAccesses>
  codecBrotli(data: Uint8Array, quality: number, lgwin: number, lgblock: number): Buffer
  codecBrotliAsync(data: Uint8Array, quality: number, lgwin: number, lgblock: number): Promise<Buffer>
}

/** Arrays a caller lends the decoder to write into, each at least the chunk's count long. */
export interface DecodeInto {
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
}

/** Per point 9 numbers (see register.c) and the [value, count] pairs they index. */
interface MetricsRows {
  rows: Float64Array
  pairs: Float64Array
}

const core = (): CodecExports => nativeCore() as unknown as CodecExports

/**
 * Most events a chunk may declare: the writer stores at most 2^18 per chunk; anything far
 * above is damage, and decoding it would allocate without bound.
 */
export const MAX_DECODED_CHUNK_EVENTS = 1 << 20

function toMetrics({ rows, pairs }: MetricsRows): PointStreamMetrics[] {
  const out: PointStreamMetrics[] = []
  let at = 0
  for (let r = 0; r < rows.length; r += 9) {
    const pairsOf = (n: number): Array<[number, number]> => {
      const list: Array<[number, number]> = []
      for (let k = 0; k < n; k++, at += 2) list.push([pairs[at]!, pairs[at + 1]!])
      return list
    }
    const lengths = pairsOf(rows[r + 7]!)
    const strides = pairsOf(rows[r + 8]!)
    out.push({
      point: rows[r]!,
      accesses: rows[r + 1]!,
      predictable: rows[r + 2]!,
      streams: rows[r + 3]!,
      lengthSum: rows[r + 4]!,
      lengths,
      strides,
      distinctLengths: rows[r + 5]!,
      distinctStrides: rows[r + 6]!
    })
  }
  return out
}

export class NativePrsdSequiturEncoder implements ChunkEncoder {
  private readonly handle: Handle
  lastStats: EncodeStats | null = null
  readonly metrics: StreamMetricsSource
  readonly version: PrsdVersion
  /** The codec name its chunks are stored under. */
  readonly codec: string

  constructor(readonly maxChunkEvents = 1 << 16, private readonly options: EncoderOptions = {}) {
    this.version = options.version ?? PRSD_VERSION
    this.codec = prsdCodecName(this.version)
    this.handle = core().codecEncoderCreate(maxChunkEvents, this.version)
    this.metrics = { finish: () => toMetrics(core().codecEncoderMetrics(this.handle)) }
  }

  encode(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointCount: number): Buffer {
    const c = core()
    const first = c.codecEncode(this.handle, count, points, addresses, sizes, pointCount)
    const s = secondStageSettings(first.structure, first.residue, count, this.options, this.version)
    const brotli = (data: Uint8Array, t: BrotliSetting): Buffer => c.codecBrotli(data, t.quality, t.lgwin, t.lgblock)
    return this.keep(count, first, framed(brotli(first.structure, s.structure), first.residue && s.residue ? brotli(first.residue, s.residue) : null, this.version))
  }

  /**
   * encode with both stages on Node's thread pool: the same bytes. `first` resolves when the
   * first stage is over (it never rejects): from then on the arrays may change and the encoder
   * takes the next chunk; until then a second call is refused (its stream metrics run on
   * across chunks, so first stages go one at a time). `data` settles with the chunk once brotli
   * has framed it, or with the failure of either stage. A writer that starts the next chunk at
   * `first` keeps the first stages from waiting on brotli.
   */
  encodeStaged(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointCount: number): { first: Promise<void>; data: Promise<Buffer> } {
    const c = core()
    const first = c.codecEncodeAsync(this.handle, count, points, addresses, sizes, pointCount)
    const brotli = (data: Uint8Array, t: BrotliSetting): Promise<Buffer> => c.codecBrotliAsync(data, t.quality, t.lgwin, t.lgblock)
    const data = first.then(async (f) => {
      const s = secondStageSettings(f.structure, f.residue, count, this.options, this.version)
      const [structure, residue] = await Promise.all([brotli(f.structure, s.structure), f.residue && s.residue ? brotli(f.residue, s.residue) : null])
      return this.keep(count, f, framed(structure, residue, this.version))
    })
    const over = (): void => undefined
    return { first: first.then(over, over), data }
  }

  private keep(count: number, first: FirstStage, chunk: { data: Buffer; structureBytes: number; residueBytes: number }): Buffer {
    this.lastStats = {
      events: count,
      descriptors: first.descriptors,
      irregular: first.irregular,
      rules: first.rules,
      structureBytes: chunk.structureBytes,
      residueBytes: chunk.residueBytes
    }
    return chunk.data
  }
}

/** METRIC section 9 stream metrics over a stored trace, fed one decoded chunk at a time. */
export class NativeRsdMetrics implements StreamMetricsSource {
  private readonly handle = core().codecMetricsCreate()

  add(count: number, points: Uint32Array, addresses: Float64Array, pointCount: number): void {
    core().codecMetricsAdd(this.handle, count, points, addresses, pointCount)
  }

  finish(): PointStreamMetrics[] {
    return toMetrics(core().codecMetricsFinish(this.handle))
  }
}

function damaged(e: unknown): Error {
  const message = e instanceof Error ? e.message : String(e)
  return new Error(message.startsWith('trace chunk is damaged') ? message : `trace chunk is damaged: ${message}`)
}

/**
 * Decodes one `prsd-sequitur-v1`, `-v2` or `-v3` chunk, both stages in the native core (its format
 * byte says which; `version`, when the store says which codec wrote it, must match). Damage (a
 * bad header or brotli stream, counts that do not add up, points outside the table, addresses
 * not below 2^53, a declared count above MAX_DECODED_CHUNK_EVENTS, repeats that expand past
 * it) throws an Error saying the chunk is damaged; work and memory stay bounded by the declared
 * count. `events`, when the store knows it, must match.
 */
export function decodePrsdSequiturChunkNative(data: Uint8Array, pointCount: number, events?: number, version?: PrsdVersion): DecodedAccesses {
  const { format, structure, residue, count } = stored(data, events, version)
  return core().codecDecodeChunk(structure, residue, pointCount, count, format)
}

/**
 * decodePrsdSequiturChunkNative on Node's thread pool, brotli included: the caller works on
 * the previous chunk meanwhile.
 */
export async function decodePrsdSequiturChunkNativeAsync(data: Uint8Array, pointCount: number, events?: number, version?: PrsdVersion, into?: DecodeInto): Promise<DecodedAccesses> {
  const { format, structure, residue, count } = stored(data, events, version)
  if (!into) return core().codecDecodeChunkAsync(structure, residue, pointCount, count, format)
  // Lent arrays: a streaming reader reuses them instead of a zero-filled allocation per chunk.
  await core().codecDecodeChunkAsync(structure, residue, pointCount, count, format, into.points, into.addresses, into.sizes)
  return { count, points: into.points.subarray(0, count), addresses: into.addresses.subarray(0, count), sizes: into.sizes.subarray(0, count) }
}

/**
 * The chunk's header checked and its two brotli streams, with the count it must declare: the
 * store's, or, when the caller does not know it, the one its structure declares (brotli undone
 * once more for it in the core: only tools and tests decode without the store's count).
 */
function stored(data: Uint8Array, events?: number, version?: PrsdVersion): { format: PrsdVersion; structure: Uint8Array; residue: Uint8Array; count: number } {
  try {
    const parts = splitChunk(data, version)
    if (events !== undefined && !(Number.isInteger(events) && events >= 0 && events <= MAX_DECODED_CHUNK_EVENTS))
      throw new Error(`the session records ${events} events for it, more than a chunk holds`)
    const count = events ?? core().codecChunkCount(parts.structure)
    if (count < 0 || count > MAX_DECODED_CHUNK_EVENTS) throw new Error(`it declares ${count < 0 ? 'an unreadable number of' : count} events`)
    return { ...parts, count }
  } catch (e) {
    throw damaged(e)
  }
}

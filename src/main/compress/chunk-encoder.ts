/**
 * What the store needs from a `prsd-sequitur-v1`/`-v2` implementation: an encoder that keeps the
 * stream metrics as it goes, and a decoder. The production one is native
 * (../native/codec.ts); the TypeScript modules here are its readable reference model.
 */
import type { DecodedAccesses, EncodeStats } from './prsd-codec'
import type { PointStreamMetrics } from './rsd-metrics'

/** METRIC section 9 per-point stream metrics, gathered while encoding. */
export interface StreamMetricsSource {
  /** Ends every open RSD and returns the metrics of points with accesses, by point. */
  finish(): PointStreamMetrics[]
}

export interface ChunkEncoder {
  readonly maxChunkEvents: number
  /** The codec name its chunks are stored under. */
  readonly codec: string
  readonly metrics: StreamMetricsSource
  readonly lastStats: EncodeStats | null
  /** One self-contained chunk of `count` accesses (points < pointCount). */
  encode(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointCount: number): Buffer
}

export type ChunkDecoder = (data: Uint8Array, pointCount: number) => DecodedAccesses

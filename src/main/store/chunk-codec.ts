/**
 * Trace chunk format `delta-deflate-v1` (pure). A chunk holds N accesses in execution order:
 *   u32 N, then N x u32 point, N x f64 address delta, N x u16 size, raw-deflated together.
 * The address is stored as the difference from the previous address of the same point within
 * the chunk (the first one from 0), so strided loops become runs of one repeated value that
 * deflate squeezes well. Chunks decode independently.
 * New sessions use `prsd-sequitur-v4` (decoded natively, ../compress/native-codec.ts); this one,
 * `prsd-sequitur-v1` and `-v2` stay readable.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { prsdCodecName, prsdVersionOf, PRSD_VERSIONS } from '../compress/prsd-codec'
import { decodePrsdSequiturChunkNative, decodePrsdSequiturChunkNativeAsync, type DecodeInto } from '../compress/native-codec'

export const CHUNK_CODEC = 'delta-deflate-v1'

/** Codecs this build reads. */
export const READABLE_CODECS: readonly string[] = [CHUNK_CODEC, ...PRSD_VERSIONS.map(prsdCodecName)]

export interface DecodedChunk {
  count: number
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  /** Where a chunk read from a session lies: its stored chunk (sequence number, its points) and its first access there (readers yield stored chunks in slices). */
  stored?: { seq: number; at: number; count: number; points: Uint32Array }
}

export function encodeChunk(
  count: number,
  points: Uint32Array,
  addresses: Float64Array,
  sizes: Uint16Array,
  pointCount: number
): Buffer {
  const last = new Float64Array(pointCount)
  const bytes = 4 + count * (4 + 8 + 2)
  const raw = Buffer.allocUnsafe(bytes)
  raw.writeUInt32LE(count, 0)
  const pointsOut = new Uint32Array(raw.buffer, raw.byteOffset + 4, count)
  // Float64Array views need 8-byte alignment: assemble deltas separately, then copy.
  const deltas = new Float64Array(count)
  for (let i = 0; i < count; i++) {
    const p = points[i]!
    pointsOut[i] = p
    const a = addresses[i]!
    deltas[i] = a - last[p]!
    last[p] = a
  }
  Buffer.from(deltas.buffer, 0, count * 8).copy(raw, 4 + count * 4)
  Buffer.from(sizes.buffer, sizes.byteOffset, count * 2).copy(raw, 4 + count * 12)
  return deflateRawSync(raw, { level: 1 })
}

/** No stored chunk of this codec holds more (it was written in 64K-access chunks). */
const MAX_DEFLATE_ACCESSES = 1 << 20

export function decodeChunk(data: Uint8Array, pointCount: number, expectedCount?: number): DecodedChunk {
  // Bounded inflate: a crafted chunk cannot expand past the most a chunk may hold.
  const raw = inflateRawSync(data, { maxOutputLength: 4 + MAX_DEFLATE_ACCESSES * 14 })
  if (raw.length < 4) throw new Error('trace chunk is truncated')
  const count = raw.readUInt32LE(0)
  if (expectedCount !== undefined && count !== expectedCount) throw new Error(`it holds ${count} accesses, not the ${expectedCount} it declares`)
  if (raw.length !== 4 + count * 14) throw new Error(`trace chunk holds ${raw.length} bytes, expected ${4 + count * 14}`)
  // Copy into aligned arrays (the inflated buffer's offset is arbitrary).
  const aligned = new Uint8Array(raw.length - 4)
  aligned.set(raw.subarray(4))
  const points = new Uint32Array(aligned.buffer, 0, count).slice()
  const deltas = new Float64Array(aligned.buffer.slice(count * 4, count * 12))
  const sizes = new Uint16Array(aligned.buffer.slice(count * 12, count * 14))
  const last = new Float64Array(pointCount)
  const addresses = new Float64Array(count)
  for (let i = 0; i < count; i++) {
    const p = points[i]!
    if (p >= pointCount) throw new Error(`trace chunk names access point ${p}, but the session has ${pointCount}`)
    const a = last[p]! + deltas[i]!
    if (!(a >= 0 && a <= Number.MAX_SAFE_INTEGER && Number.isInteger(a))) throw new Error(`address ${a} is not a valid address`)
    addresses[i] = a
    last[p] = a
  }
  return { count, points, addresses, sizes }
}

/** decodeStoredChunk off this thread where the codec allows it (the native one): a promise. */
export async function decodeStoredChunkAsync(codec: string, data: Uint8Array, pointCount: number, expectedCount?: number, into?: DecodeInto): Promise<DecodedChunk> {
  const version = prsdVersionOf(codec)
  if (version) return decodePrsdSequiturChunkNativeAsync(data, pointCount, expectedCount, version, into)
  return decodeStoredChunk(codec, data, pointCount, expectedCount)
}

/** Decodes a stored chunk of any readable codec. */
export function decodeStoredChunk(codec: string, data: Uint8Array, pointCount: number, expectedCount?: number): DecodedChunk {
  const version = prsdVersionOf(codec)
  if (version) return decodePrsdSequiturChunkNative(data, pointCount, expectedCount, version)
  if (codec === CHUNK_CODEC) return decodeChunk(data, pointCount, expectedCount)
  throw new Error(`unknown trace chunk codec "${codec}"`)
}

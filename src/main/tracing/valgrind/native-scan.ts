/**
 * The access records of Stride's Valgrind tool, copied into the tracer's batch by the native
 * core (resources/native/core/src/trace/scan.c): no JavaScript runs per access on the way in.
 */
import { StrideError } from '../../../shared/errors'
import { nativeCore } from '../../native/core'

/** The tracer's batch: accesses in stream order, with the session point and thread of each. */
export interface AccessBatch {
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
  threads: Uint16Array
}

type Scan = (
  stage: Uint8Array,
  from: number,
  end: number,
  toolPoints: Int32Array,
  defined: number,
  points: Uint32Array,
  addresses: Float64Array,
  sizes: Uint16Array,
  threads: Uint16Array,
  outAt: number,
  outCap: number,
  counts: Float64Array
) => number

let scan: Scan | null = null

function traceScan(): Scan {
  if (scan) return scan
  const f = nativeCore().traceScan
  if (typeof f !== 'function') throw new StrideError('Stride\'s native core predates the tracer\'s record scan: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
  return (scan = f as Scan)
}

/**
 * Copies access records from `stage` (byte offsets `from`..`end`, whole records) into `batch`
 * at `outAt` until a control record, an access of an undefined tool point (>= `defined`) or of
 * one without a session point yet (`toolPoints` -1), or `outCap`; `counts[point]` grows by
 * each access. Returns the byte offset it stopped at: (it - from) / 16 accesses were copied.
 */
export function scanAccesses(stage: Uint8Array, from: number, end: number, toolPoints: Int32Array, defined: number, batch: AccessBatch, outAt: number, outCap: number, counts: Float64Array): number {
  return traceScan()(stage, from, end, toolPoints, defined, batch.points, batch.addresses, batch.sizes, batch.threads, outAt, outCap, counts)
}

/**
 * The correlator's per-access loop in the native core (resources/native/core/src/trace/
 * attribute.c): the accesses that a point's remembered span and its current run answer are
 * counted there; the loop stops at the first that is not, for the correlator to handle.
 */
import { StrideError } from '../../shared/errors'
import { nativeCore } from '../native/core'
import type { Spans } from './address-map'

type Attribute = (
  points: Uint32Array,
  addresses: Float64Array,
  from: number,
  to: number,
  epoch: number,
  spanEpoch: Float64Array,
  spanLow: Float64Array,
  spanHigh: Float64Array,
  spanVariable: Int32Array,
  kindOf: Uint8Array,
  runVar: Int32Array,
  runKind: Uint8Array,
  runCount: Float64Array
) => number

let attribute: Attribute | null = null

function traceAttribute(): Attribute {
  if (attribute) return attribute
  const f = nativeCore().traceAttribute
  if (typeof f !== 'function') throw new StrideError('Stride\'s native core predates the correlator\'s loop: run "npm install" (or "node scripts/build-native.mjs") to rebuild it.', 'tool-missing')
  return (attribute = f as Attribute)
}

/** Per point, its current run: variable (-1: none), kind, accesses so far. */
export interface Runs {
  variable: Int32Array
  kind: Uint8Array
  count: Float64Array
}

/** Counts accesses from..to-1 into their points' runs while spans and runs answer them; returns where it stopped. */
export function countAnswered(points: Uint32Array, addresses: Float64Array, from: number, to: number, spans: Spans, kindOf: Uint8Array, runs: Runs): number {
  return traceAttribute()(points, addresses, from, to, spans.epoch, spans.epochs, spans.low, spans.high, spans.variable, kindOf, runs.variable, runs.kind, runs.count)
}

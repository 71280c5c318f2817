/**
 * Mohan et al. Table 1 as an advisor: from a function's stream statistics, the optimizations
 * the table relates to them, each with the evidence that triggered it. The thresholds are the
 * table's rules of thumb (strides in elements, lengths in references): long = 100+, many =
 * 10k+, few = < 10, short/moderate stride < 10, large stride 32+, irregular = regularity < 0.6;
 * "regular" above 0.80 (section 2.1).
 */
import { LONG_STREAM, type StreamStatistics } from './stream-detector'

export interface Advice {
  optimization: string
  /** Table 1's characteristics column for this row. */
  rule: string
  evidence: string
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`

export function adviseFromStreams(s: StreamStatistics): Advice[] {
  const out: Advice[] = []
  if (s.references === 0) return out
  const long = s.longStreams.shortStride + s.longStreams.moderateStride + s.longStreams.largeStride
  const reg = `spatial regularity ${s.spatialRegularity.toFixed(2)}`
  if (s.spatialRegularity < 0.6) {
    out.push({
      optimization: 'scatter/gather using an indirection vector',
      rule: 'irregular (< 0.6)',
      // A function's streams cannot tell an index vector from a pointer chase (p = p->next has
      // none to gather through): the Advisor tab reads each reference's instruction for that.
      evidence: `${reg}: ${pct(1 - s.spatialRegularity)} of ${s.references} references belong to no stream; if they go through an index vector, gather through it; a pointer chase has none: lay the nodes out in walk order (the Advisor tab tells the two apart)`
    })
  }
  if (s.longStreams.largeStride > 0) {
    out.push({
      optimization: 'loop interchange / copying, stream remapping',
      rule: `long streams (${LONG_STREAM}+) with large strides (32+ elements)`,
      evidence: `${s.longStreams.largeStride} of ${s.streams} streams are ${LONG_STREAM}+ long with strides of 32+ elements; mean stride ${s.meanStride.toFixed(0)} bytes (${s.meanStrideElements.toFixed(1)} elements); ${reg}`
    })
  }
  if (long >= 10000 && s.longStreams.moderateStride + s.longStreams.largeStride > 0) {
    out.push({
      optimization: 'tiling',
      rule: `many (10k+) long streams (${LONG_STREAM}+), some with large strides (10+)`,
      evidence: `${long} streams are ${LONG_STREAM}+ long, ${s.longStreams.moderateStride + s.longStreams.largeStride} of them with strides of 10+ elements`
    })
  }
  if (s.longStreams.shortStride > 0) {
    out.push({
      optimization: 'prefetching',
      rule: `long streams (${LONG_STREAM}+) with short/moderate strides (< 10)`,
      evidence: `${s.longStreams.shortStride} streams are ${LONG_STREAM}+ long with strides under 10 elements; mean length ${s.meanLength.toFixed(0)} (deviation ${s.lengthDeviation.toFixed(0)})`
    })
  }
  if (long > 0 && long < 10 && s.longStreams.shortStride === long) {
    out.push({
      optimization: 'data layout / code restructuring, if cache miss rates are high',
      rule: 'few long (100+) streams with short strides (< 8); high cache miss rates',
      evidence: `only ${long} long streams, all with strides under 10 elements (check the simulated miss rates)`
    })
  }
  const short = s.buckets['4-32'] + (s.streams - s.buckets['4-32'] - s.buckets['32-128'] - s.buckets['128-16384'] - s.buckets['>16384'])
  if (s.streams >= 100 && short / s.streams > 0.5 && s.scalarStreams / s.streams > 0.25) {
    out.push({
      optimization: 'loop fission / loop unrolling',
      rule: 'many short streams; many scalar streams from register pressure',
      evidence: `${short} of ${s.streams} streams are shorter than 32, ${s.scalarStreams} are scalar (stride 0)`
    })
  }
  return out
}

/**
 * Mohan et al. section 4, convergence sampling, decided on the host: "sampling continues
 * until the fractional change between measures from successive samples falls below [a
 * user] threshold". A sample is one call of a chosen function; its measures are the stream
 * metrics of the accesses made during the call (src/main/compress/stream-detector.ts):
 * spatial regularity, mean stream length and mean stride in elements. The change between
 * two samples is the largest relative change of the three. Pure: addresses in, decisions out.
 */
import { StreamDetector, type StreamStatistics } from '../../compress/stream-detector'

export interface SampleMeasures {
  spatialRegularity: number
  meanLength: number
  meanStrideElements: number
}

export function measuresOf(s: StreamStatistics): SampleMeasures {
  return { spatialRegularity: s.spatialRegularity, meanLength: s.meanLength, meanStrideElements: s.meanStrideElements }
}

/** Largest relative change of any measure (0 when both are 0; relative to the earlier one). */
export function fractionalChange(before: SampleMeasures, after: SampleMeasures): number {
  let worst = 0
  for (const k of ['spatialRegularity', 'meanLength', 'meanStrideElements'] as const) {
    const a = before[k]
    const b = after[k]
    if (a === b) continue
    worst = Math.max(worst, a === 0 ? Infinity : Math.abs(b - a) / Math.abs(a))
  }
  return worst
}

export interface ConvergenceDecision {
  fn: string
  samples: number
  change: number
  converged: boolean
}

/** Per function: the open sample's detector and the previous sample's measures. */
export class ConvergenceTracker {
  private readonly open = new Map<string, StreamDetector>()
  private readonly previous = new Map<string, SampleMeasures>()
  private readonly samples = new Map<string, number>()
  private readonly done = new Set<string>()

  constructor(
    private readonly threshold: number,
    /** Samples to take at least before a function may converge. */
    private readonly minSamples = 2
  ) {}

  /** A call of `fn` starts a sample (a nested or recursive call continues the open one). */
  begin(fn: string): void {
    if (!this.done.has(fn) && !this.open.has(fn)) this.open.set(fn, new StreamDetector())
  }

  /** An access made inside `fn` while its sample is open. */
  access(fn: string, address: number, size: number): void {
    this.open.get(fn)?.add(address, size)
  }

  /** The call returned: closes the sample and says whether the function has converged. */
  end(fn: string): ConvergenceDecision | null {
    const detector = this.open.get(fn)
    if (!detector) return null
    this.open.delete(fn)
    const stats = detector.finish()
    if (stats.references === 0) return null // a call that touched no memory says nothing
    const n = (this.samples.get(fn) ?? 0) + 1
    this.samples.set(fn, n)
    const now = measuresOf(stats)
    const before = this.previous.get(fn)
    this.previous.set(fn, now)
    const change = before ? fractionalChange(before, now) : Infinity
    const converged = n >= Math.max(2, this.minSamples) && change < this.threshold
    if (converged) this.done.add(fn)
    return { fn, samples: n, change, converged }
  }

  isDone(fn: string): boolean {
    return this.done.has(fn)
  }
}

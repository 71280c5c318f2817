/**
 * Buck 2.1: sample 1 in N misses (a counter-overflow interrupt every N misses) and count the
 * sampled miss's object. Regular intervals can alias with a loop's miss pattern (Buck 3.1:
 * tomcatv sampled at exactly 1 in 50,000 put 37% on RX instead of 22.5%), so the default is
 * the next prime at or above N, or pseudo-random intervals with mean N.
 */

export type SamplingInterval = 'prime' | 'random' | 'regular'

export function isPrime(n: number): boolean {
  if (n < 2) return false
  if (n % 2 === 0) return n === 2
  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false
  return true
}

export function nextPrime(n: number): number {
  let p = Math.max(2, Math.ceil(n))
  while (!isPrime(p)) p++
  return p
}

export class MissSampler {
  /** The interval actually used (N, or the prime chosen for it). */
  readonly period: number
  /** Samples per object; the last slot is the unknown bucket (addresses in no object). */
  readonly counts: Float64Array
  samples = 0
  private untilSample: number
  private rng: number

  constructor(
    readonly every: number,
    readonly interval: SamplingInterval,
    objectCount: number,
    seed = 0x9e3779b9
  ) {
    if (!Number.isInteger(every) || every < 1) throw new Error(`sampling interval must be a whole number >= 1, not ${every}`)
    this.period = interval === 'prime' ? nextPrime(every) : every
    this.counts = new Float64Array(objectCount + 1)
    this.rng = seed >>> 0 || 1
    this.untilSample = this.nextInterval()
  }

  /** xorshift32: uniform in [1, 2N - 1], mean N. */
  private nextInterval(): number {
    if (this.interval !== 'random') return this.period
    let x = this.rng
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.rng = x >>> 0
    return 1 + (this.rng % (2 * this.period - 1))
  }

  /** One miss, of object `object` (UNKNOWN_OBJECT = -1 for none). */
  observe(object: number): void {
    if (--this.untilSample > 0) return
    this.untilSample = this.nextInterval()
    this.samples++
    this.counts[object < 0 ? this.counts.length - 1 : object]!++
  }
}

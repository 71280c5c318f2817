/**
 * Mohan et al. section 4, on the agent side: per chosen function, whether its next call is
 * sampled and whether its instrumentation comes off after a call. Pure (no Frida globals):
 * the agent calls it from its Interceptor hooks and timers, the unit tests call it directly.
 * Convergence is decided on the host (it has the stream detector) and arrives as stop().
 */
import type { SamplingMode } from './protocol'

export type ExitAction = 'keep' | 'remove'

export class SamplingPlan {
  private readonly calls = new Map<string, number>()
  private readonly removed = new Set<string>()
  private paused = false

  constructor(
    private readonly mode: SamplingMode,
    private readonly functions: readonly string[]
  ) {
    for (const f of functions) this.calls.set(f, 0)
  }

  /** At a call of `fn`: sample it? (no when removed, or in a periodic off interval). */
  shouldSample(fn: string): boolean {
    return !this.paused && !this.removed.has(fn) && this.calls.has(fn)
  }

  /** After a sampled call of `fn` returned: keep its instrumentation or remove it. */
  sampled(fn: string): ExitAction {
    const n = (this.calls.get(fn) ?? 0) + 1
    this.calls.set(fn, n)
    if (this.mode.kind === 'max-samples' && n >= this.mode.samples) {
      this.removed.add(fn)
      return 'remove'
    }
    return 'keep'
  }

  /** The host says `fn` is sampled enough (convergence): no more calls of it are sampled. */
  stop(fn: string): boolean {
    if (!this.calls.has(fn) || this.removed.has(fn)) return false
    this.removed.add(fn)
    return true
  }

  /** Periodic sampling's off interval (true) and back on (false). */
  setPaused(paused: boolean): void {
    this.paused = paused
  }

  get isPaused(): boolean {
    return this.paused
  }

  /** Every function is done: nothing more will ever be sampled. */
  get finished(): boolean {
    return this.functions.every((f) => this.removed.has(f))
  }

  /** Functions still instrumented (outside pauses). */
  active(): string[] {
    return this.functions.filter((f) => !this.removed.has(f))
  }

  samples(fn: string): number {
    return this.calls.get(fn) ?? 0
  }
}

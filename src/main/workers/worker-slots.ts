/** A counting semaphore for worker threads: at most `max` run; the others wait in order. */
export class WorkerSlots {
  private used = 0
  private readonly queue: Array<() => void> = []

  constructor(readonly max: number) {}

  get running(): number {
    return this.used
  }

  get waiting(): number {
    return this.queue.length
  }

  acquire(): Promise<void> {
    if (this.used < this.max) {
      this.used++
      return Promise.resolve()
    }
    return new Promise((resolve) => this.queue.push(resolve))
  }

  /** Hands the slot to the next waiter, if any. */
  release(): void {
    const next = this.queue.shift()
    if (next) next()
    else this.used = Math.max(0, this.used - 1)
  }
}

/** Stand-ins for the record stream's consumers, for the tracing tests. Never imported by production code. */
import type { StagingReader } from '../tracing/valgrind/record-pipe'
import type { ToolStreamSink } from '../tracing/valgrind/tool-stream'

/**
 * A staging reader that keeps counts of every byte it is given (their sum, and a
 * position-weighted sum that shows a block read twice or out of order) in a buffer of `size`
 * bytes, smaller than the streams the tests send.
 */
export class StageCollector implements StagingReader {
  private readonly stage: Uint8Array
  total = 0
  sum = 0
  weighted = 0
  reads = 0

  constructor(size: number) {
    this.stage = new Uint8Array(size)
  }

  space(): Uint8Array {
    return this.stage
  }

  received(n: number): void {
    this.reads++
    for (let i = 0; i < n; i++) {
      this.sum += this.stage[i]!
      this.weighted = (this.weighted * 31 + this.stage[i]!) % 1_000_000_007
    }
    this.total += n
  }
}

/** A sink that ignores every record but those `handlers` take. */
export function sinkWith(handlers: Partial<ToolStreamSink>): ToolStreamSink {
  const ignore = () => {}
  return { header: ignore, point: ignore, access: ignore, context: ignore, enter: ignore, leave: ignore, alloc: ignore, free: ignore, detach: ignore, exit: ignore, exec: ignore, thread: ignore, maps: ignore, ...handlers }
}

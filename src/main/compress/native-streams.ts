/**
 * The production stream detector: Mohan's detector (stream-detector.ts, the readable model,
 * whose rules it follows) run by Stride's native core (resources/native/core/src/streams),
 * one detector per group (per function, for the session's function statistics). Batches
 * cross as typed arrays with each point's group; no JavaScript runs per access.
 */
import { nativeCore } from '../native/core'
import { DEFAULT_WINDOW, streamStatistics, type StreamStatistics } from './stream-detector'

type Handle = { readonly __streams: unique symbol }

interface StreamsExports {
  streamsCreate(window: number, groups: number): Handle
  streamsAdd(h: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, groupOfPoint: Int32Array): void
  streamsFinish(h: Handle): Float64Array
}

const core = (): StreamsExports => nativeCore() as unknown as StreamsExports

/** Numbers per group in streamsFinish's rows (see src/streams/register.c). */
const ROW = 14

export class NativeStreamDetectors {
  private readonly handle: Handle

  /** `groupOfPoint[p]`: the detector point p's accesses go to (every point needs one). */
  constructor(
    private readonly groupOfPoint: Int32Array,
    private readonly groups: number,
    private readonly window = DEFAULT_WINDOW
  ) {
    this.handle = core().streamsCreate(window, groups)
  }

  add(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array): void {
    core().streamsAdd(this.handle, count, points, addresses, sizes, this.groupOfPoint)
  }

  /** Retires every stream; the statistics of each group, in group order. */
  finish(): StreamStatistics[] {
    const rows = core().streamsFinish(this.handle)
    const out: StreamStatistics[] = []
    for (let g = 0; g < this.groups; g++) {
      const r = rows.subarray(g * ROW, (g + 1) * ROW)
      out.push(
        streamStatistics(
          {
            streams: r[1]!,
            scalar: r[2]!,
            inStreams: r[3]!,
            lengthSq: r[4]!,
            strideSum: r[5]!,
            strideElemSum: r[6]!,
            buckets: { '4-32': r[7]!, '32-128': r[8]!, '128-16384': r[9]!, '>16384': r[10]! },
            long: { shortStride: r[11]!, moderateStride: r[12]!, largeStride: r[13]! }
          },
          r[0]!,
          this.window
        )
      )
    }
    return out
  }
}

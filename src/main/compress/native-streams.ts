/**
 * The production stream detector: Mohan's detector (stream-detector.ts, the readable model,
 * whose rules it follows) run by Stride's native core (resources/native/core/src/streams),
 * one detector per group (per function, for the session's function statistics). Batches
 * cross as typed arrays with each point's group; no JavaScript runs per access. Groups and
 * points may be added between batches (`grow`), as a trace's functions become known while it
 * runs (../store/live-function-streams.ts).
 */
import { nativeCore } from '../native/core'
import { DEFAULT_WINDOW, streamStatistics, type StreamStatistics } from './stream-detector'

type Handle = { readonly __streams: unique symbol }

interface StreamsExports {
  streamsCreate(window: number, groups: number): Handle
  streamsAddGroups(h: Handle, groups: number): void
  streamsAdd(h: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, groupOfPoint: Int32Array): void
  streamsAddAsync(h: Handle, count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, groupOfPoint: Int32Array): Promise<void>
  streamsFinish(h: Handle): Float64Array
}

const core = (): StreamsExports => nativeCore() as unknown as StreamsExports

/** Numbers per group in streamsFinish's rows (see src/streams/register.c). */
const ROW = 14

export class NativeStreamDetectors {
  private readonly handle: Handle

  /** `groupOfPoint[p]`: the detector point p's accesses go to (every point needs one). */
  constructor(
    private groupOfPoint: Int32Array,
    private groups: number,
    private readonly window = DEFAULT_WINDOW
  ) {
    this.handle = core().streamsCreate(window, groups)
  }

  /**
   * Later batches may name more points and groups: `groupOfPoint` replaces the table (earlier
   * points keep their group) and new groups start empty. Not while an addAsync is running.
   */
  grow(groupOfPoint: Int32Array, groups: number): void {
    if (groups < this.groups) throw new Error('stream detectors: groups are never removed')
    core().streamsAddGroups(this.handle, groups)
    this.groupOfPoint = groupOfPoint
    this.groups = groups
  }

  add(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array): void {
    core().streamsAdd(this.handle, count, points, addresses, sizes, this.groupOfPoint)
  }

  /**
   * add() on Node's thread pool. The arrays (and the group table) must stay unchanged until it
   * settles, and no other call may be made meanwhile (the detectors refuse it).
   */
  addAsync(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array): Promise<void> {
    return core().streamsAddAsync(this.handle, count, points, addresses, sizes, this.groupOfPoint)
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

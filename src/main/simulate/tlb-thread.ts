/** When a hierarchy's TLB levels get a thread of their own (native-hierarchy.ts, pair.c in the core). */
import { availableParallelism } from 'node:os'

/**
 * Whether a TLB thread (NativeHierarchyOptions.tlbThread) has a core to itself: more cores than
 * the threads already `busy` with this simulation's work (its own, the chunk decoding ahead on
 * the thread pool, a sweep's other workers, a recording's tool and worker).
 */
export function tlbThreadPays(busy: number): boolean {
  return availableParallelism() > busy
}

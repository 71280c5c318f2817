/**
 * Node's thread pool (libuv's: 4 threads unless UV_THREADPOOL_SIZE says otherwise) runs the
 * native core's asynchronous work: chunk decodes, the stream detectors, the codec, a trace's
 * live simulation. Beside the worker threads and Valgrind, four pool threads on a machine of
 * two cores only take turns on them: a pool of two made `stride trace --cache` and `stride
 * simulate` 1-3% faster there (docs/BENCHMARKS.md at cb83178). A machine of four cores or more keeps
 * libuv's four, and a user's UV_THREADPOOL_SIZE is left as it is.
 */
import { stat } from 'node:fs'
import { availableParallelism } from 'node:os'

/** The pool size to set (null: leave libuv's default, or the user's). */
export function threadPoolSize(cores: number, userSize: string | undefined): number | null {
  if (userSize !== undefined || cores >= 4) return null
  return Math.max(2, cores)
}

/**
 * Sizes the pool before its first use. libuv reads the variable once, when the pool starts (at
 * the first work queued, which this queues); it is then taken back out of the environment,
 * which the traced program and the tools Stride runs inherit.
 */
export function sizeThreadPool(): void {
  const size = threadPoolSize(availableParallelism(), process.env.UV_THREADPOOL_SIZE)
  if (size === null) return
  process.env.UV_THREADPOOL_SIZE = String(size)
  stat('.', () => {})
  delete process.env.UV_THREADPOOL_SIZE
}

/** Growing the per-point typed arrays the trace path indexes by point (tables that only grow). */

type Grows = Int32Array | Uint8Array | Uint16Array | Uint32Array | Float64Array

/**
 * `array` itself when it holds index `index`, else a copy at least twice as long (and at least
 * `minimum`), the new cells set to `fill`.
 */
export function grownFor<T extends Grows>(array: T, index: number, fill = 0, minimum = 0): T {
  if (index < array.length) return array
  const fresh = new (array.constructor as new (n: number) => T)(Math.max(index + 1, array.length * 2, minimum))
  if (fill !== 0) fresh.fill(fill, array.length)
  fresh.set(array)
  return fresh
}

/** xorshift32: a deterministic sequence in [0, 1), so seeded tests make the same cases every run. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x / 2 ** 32
  }
}

/**
 * How well an estimate keeps the reference ranking: Spearman's rank correlation over the
 * reference's top k, as Rutar 4.3 tabulates it: each of those objects has its rank in the
 * reference and its rank in the estimate's whole list (so an outlier the estimate puts on top,
 * like a loop index, pushes the real ones down and costs rho), and
 * rho = 1 - 6 sum(d^2) / (k (k^2 - 1)). Ties get their average rank; an object the estimate
 * does not list ranks just after its last.
 */

export interface Ranked {
  name: string
  value: number
}

/** 1-based ranks, highest value first, ties averaged. */
export function averageRanks(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0])
  const ranks = new Array<number>(values.length)
  for (let i = 0; i < order.length; ) {
    let j = i
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++
    const rank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) ranks[order[k]![1]] = rank
    i = j + 1
  }
  return ranks
}

/**
 * Spearman's rho of `estimate` against `reference` over the reference's top `k` objects with
 * a non-zero value. Null when fewer than two objects qualify.
 */
export function spearmanTopK(reference: Ranked[], estimate: Ranked[], k = 10): number | null {
  const ref = reference.filter((r) => r.value > 0)
  const refRanks = averageRanks(ref.map((r) => r.value))
  const top = ref.map((r, i) => ({ name: r.name, rank: refRanks[i]! })).sort((a, b) => a.rank - b.rank).slice(0, k)
  const n = top.length
  if (n < 2) return null
  const est = estimate.filter((e) => e.value > 0)
  const estRanks = averageRanks(est.map((e) => e.value))
  const rankOf = new Map(est.map((e, i) => [e.name, estRanks[i]!]))
  let d2 = 0
  for (const t of top) d2 += (t.rank - (rankOf.get(t.name) ?? est.length + 1)) ** 2
  return 1 - (6 * d2) / (n * (n * n - 1))
}

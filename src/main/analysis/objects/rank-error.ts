/**
 * How well an estimate keeps the reference ranking: Spearman's rank correlation over the
 * reference's top k (Rutar 4.3 compares the rank order of the top ten). The k objects are
 * ranked among themselves by each measure (ties get their average rank) and rho is the
 * Pearson correlation of the two rank vectors: 1 = same order, -1 = reversed.
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

function pearson(a: number[], b: number[]): number {
  const n = a.length
  const ma = a.reduce((s, x) => s + x, 0) / n
  const mb = b.reduce((s, x) => s + x, 0) / n
  let num = 0
  let da = 0
  let db = 0
  for (let i = 0; i < n; i++) {
    num += (a[i]! - ma) * (b[i]! - mb)
    da += (a[i]! - ma) ** 2
    db += (b[i]! - mb) ** 2
  }
  if (da === 0 || db === 0) return da === db ? 1 : 0
  return num / Math.sqrt(da * db)
}

/**
 * Spearman's rho of `estimate` against `reference` over the reference's top `k` objects with
 * a non-zero value (an object the estimate does not list counts as 0). Null when fewer than
 * two objects qualify.
 */
export function spearmanTopK(reference: Ranked[], estimate: Ranked[], k = 10): number | null {
  const top = reference.filter((r) => r.value > 0).sort((a, b) => b.value - a.value).slice(0, k)
  if (top.length < 2) return null
  const est = new Map(estimate.map((e) => [e.name, e.value]))
  return pearson(averageRanks(top.map((t) => t.value)), averageRanks(top.map((t) => est.get(t.name) ?? 0)))
}

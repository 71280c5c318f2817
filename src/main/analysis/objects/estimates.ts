/** Turning per-object counts or shares into the ranked rows every method reports (pure). */
import type { ObjectEstimate, ObjectMethodResult, VariableKind } from '../../../shared/domain'
import { spearmanTopK } from './rank-error'

export const UNKNOWN_NAME = '(unknown)'

/** Rows from (name, kind, estimated misses), fractions of their sum, ranked, zero rows dropped. */
export function rankEstimates(values: Array<{ name: string; kind: VariableKind; misses: number }>, totalMisses: number): ObjectEstimate[] {
  const sum = values.reduce((s, v) => s + v.misses, 0)
  return values
    .filter((v) => v.misses > 0)
    .sort((a, b) => b.misses - a.misses || a.name.localeCompare(b.name))
    .map((v, i) => ({ name: v.name, kind: v.kind, misses: sum > 0 ? (v.misses / sum) * totalMisses : 0, fraction: sum > 0 ? v.misses / sum : 0, rank: i + 1 }))
}

/** Spearman's rho of a method against exact over exact's top 10 named objects. */
export function rankError(exact: ObjectEstimate[], method: ObjectEstimate[]): number | null {
  const named = (list: ObjectEstimate[]) => list.filter((o) => o.name !== UNKNOWN_NAME).map((o) => ({ name: o.name, value: o.fraction }))
  return spearmanTopK(named(exact), named(method), 10)
}

/** The method's label as the command line spells it. */
export function methodLabel(r: Pick<ObjectMethodResult, 'kind'>, n: { sampleEvery: number; ways: number }): string {
  switch (r.kind) {
    case 'exact':
      return 'exact'
    case 'sample':
      return `sample:${n.sampleEvery}`
    case 'search':
      return `search:${n.ways}`
    case 'approx-raw':
      return 'approx:raw'
    case 'approx-loop':
      return 'approx:loop'
    case 'approx-skid':
      return 'approx:skid'
  }
}

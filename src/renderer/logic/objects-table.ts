/**
 * The Data structures tab's table, computed from an ObjectsReport: one row per data structure
 * (exact's order, then anything a method found that exact did not rank), one column per method
 * with its share and rank, and one summary per method (rho, cost). Pure.
 */
import type { ObjectMethodResult, ObjectsReport } from '../../shared/domain'
import { formatCount } from './format'

export interface ObjectCell {
  fraction: number
  rank: number
}

export interface ObjectRow {
  name: string
  kind: string
  exact: ObjectCell | null
  /** Per method, in `methods` order; null: the method did not list it. */
  estimates: Array<ObjectCell | null>
}

export interface MethodColumn {
  method: string
  rho: number | null
  cost: string
  notes: string[]
  /** The part of the run the method saw. */
  coverage: string | null
  /** Why a row shows no estimate, by data structure name. */
  absent: Record<string, string>
}

/** What a method cannot attribute, grouped by reason: "no sampled source line reads it by name" -> [second, first]. */
export function absenceGroups(m: MethodColumn, names: string[]): Array<{ reason: string; names: string[] }> {
  const groups = new Map<string, string[]>()
  for (const name of names) {
    const reason = m.absent[name]
    if (reason) groups.set(reason, [...(groups.get(reason) ?? []), name])
  }
  return [...groups].map(([reason, list]) => ({ reason, names: list }))
}

export interface ObjectsTable {
  methods: MethodColumn[]
  rows: ObjectRow[]
}

export function describeCost(r: ObjectMethodResult): string {
  const c = r.cost
  const parts: string[] = []
  if (c.samples !== undefined) parts.push(`${formatCount(c.samples)} samples`)
  if (c.period !== undefined && c.period !== 1) parts.push(`1 in ${formatCount(c.period)}`)
  if (c.interrupts !== undefined) parts.push(`${formatCount(c.interrupts)} interrupts`)
  if (c.converged === false) parts.push('not converged')
  parts.push(`${c.seconds < 1 ? `${Math.round(c.seconds * 1000)} ms` : `${c.seconds.toFixed(1)} s`}`)
  return parts.join(' · ')
}

export function computeObjectsTable(report: ObjectsReport, limit = 25): ObjectsTable {
  const names: string[] = report.exact.objects.map((o) => o.name)
  for (const m of report.methods) for (const o of m.objects) if (!names.includes(o.name)) names.push(o.name)
  const kinds = new Map<string, string>()
  for (const list of [report.exact, ...report.methods]) for (const o of list.objects) kinds.set(o.name, o.kind)
  const cell = (r: ObjectMethodResult, name: string): ObjectCell | null => {
    const o = r.objects.find((x) => x.name === name)
    return o ? { fraction: o.fraction, rank: o.rank } : null
  }
  return {
    methods: report.methods.map((m) => ({ method: m.method, rho: m.rho, cost: describeCost(m), notes: m.notes, coverage: m.coverage ?? null, absent: m.absent ?? {} })),
    rows: names.slice(0, limit).map((name) => ({ name, kind: kinds.get(name) ?? 'unknown', exact: cell(report.exact, name), estimates: report.methods.map((m) => cell(m, name)) }))
  }
}

/** A rank error for display: rho to two decimals, with a word for how good it is. */
export function describeRho(rho: number | null): string {
  if (rho === null) return 'n/a'
  const word = rho >= 0.9 ? 'same order' : rho >= 0.5 ? 'close' : 'poor'
  return `${rho.toFixed(2)} (${word})`
}

/**
 * Names a reader knows a data structure by. Most come named from the trace (globals, locals,
 * heap blocks after the line that keeps them); a heap block the correlator could only name by
 * its allocation site (`heap@lz4frame.c:123`: allocated through a helper it could not see
 * through) is known to the reader by what the code calls it where it is used most
 * (`hashTable[h]` -> `hashTable`). The site stays the structure's identity (what the slice
 * notation and every table take); the name is what lists show first.
 */
import type { RunReport } from '../../shared/domain'

export interface DataName {
  /** The name to show: the program's own name, else the most used source name, else the id. */
  label: string
  /** The stored name (`heap@lz4frame.c:123`) when the label differs from it. */
  site: string | null
}

/** True for a name that is only an allocation site. */
export const isSiteName = (name: string) => name.startsWith('heap@')

/**
 * The variable an expression reads or writes, as written: `hashTable[h]` -> `hashTable`,
 * `p->next->v` -> `p->next->v`, `*token` -> `token`, `s.buf[i][j]` -> `s.buf`; null for
 * what names nothing (a call, a literal).
 */
export function expressionBase(expr: string): string | null {
  let e = expr.trim()
  while (/^[*&(]/.test(e)) e = e.slice(1).trim()
  const m = /^[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*/.exec(e)
  if (!m) return null
  return m[0].replace(/\s+/g, '')
}

/** Display names of the run's data structures (only those whose label is not their id are listed). */
export function computeDataNames(report: RunReport): Map<string, DataName> {
  // Per site-named structure: accesses per source name of the references into it.
  const votes = new Map<string, Map<string, number>>()
  for (const r of report.references) {
    if (!r.sourceExpr) continue
    const base = expressionBase(r.sourceExpr)
    if (!base) continue
    const parts = r.touches && r.touches.length > 0 ? r.touches : r.variable ? [{ variable: r.variable, accesses: r.reads + r.writes }] : []
    for (const t of parts) {
      if (!isSiteName(t.variable)) continue
      const v = votes.get(t.variable) ?? new Map<string, number>()
      votes.set(t.variable, v)
      v.set(base, (v.get(base) ?? 0) + t.accesses)
    }
  }
  const out = new Map<string, DataName>()
  for (const [site, v] of votes) {
    let best: string | null = null
    let most = 0
    for (const [name, n] of [...v].sort((a, b) => a[0].localeCompare(b[0])))
      if (n > most) {
        best = name
        most = n
      }
    if (best) out.set(site, { label: best, site })
  }
  return out
}

/** `hashTable (heap@lz4frame.c:123)` where the structure has a source name, else its name. */
export function describeData(names: ReadonlyMap<string, DataName>, variable: string): string {
  const n = names.get(variable)
  return n ? `${n.label} (${variable})` : variable
}

/** Diff rows as exported from the renderer (CSV/JSON); the diff itself is src/shared/run-diff.ts. */
import type { DiffRow } from '../../shared/run-diff'
import type { ExportTable } from './export'

/** Diff rows as exported (CSV/JSON). */
export function diffExportTable(rows: DiffRow[], keyLabel: string): ExportTable {
  return {
    columns: [keyLabel, 'baseline accesses', 'accesses', 'baseline misses', 'misses', 'delta misses', 'baseline miss ratio', 'miss ratio', 'delta miss ratio'],
    rows: rows.map((r) => [r.key, r.baseAccesses, r.accesses, r.baseMisses, r.misses, r.delta, r.baseRatio, r.ratio, r.deltaRatio])
  }
}

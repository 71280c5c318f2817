/**
 * The advisor's data TLB rule: a reference that misses the TLB on most of its accesses and
 * holds a large share of the TLB's misses touches a new page nearly every time; the lines it
 * uses may be few, the pages are many. Stride can try bigger pages in one click (the TLB
 * levels with 2 MiB pages, as transparent huge pages would give).
 */
import type { AdviceItem, RunReport, TlbLevelConfig, VariableInfo } from '../../../shared/domain'
import { count, fixed, kib, pct, size } from './facts'

/** Share of a TLB level's misses a reference must hold, and its own TLB miss ratio. */
const TLB_SHARE = 0.1
const TLB_RATIO = 0.2
const HUGE_PAGE = 2 * 1024 * 1024

export function tlbItems(report: RunReport, catalog: Map<string, VariableInfo>): AdviceItem[] {
  const out: AdviceItem[] = []
  const tlbs = report.config.tlb ?? []
  for (const tlb of tlbs) {
    const total = report.references.reduce((s, r) => s + (r.levels[tlb.name]?.misses ?? 0), 0)
    if (total === 0) continue
    for (const r of report.references) {
      const s = r.levels[tlb.name]
      if (!s) continue
      const accesses = s.hits + s.misses
      if (s.misses < TLB_SHARE * total || accesses === 0 || s.misses / accesses < TLB_RATIO) continue
      const stride = r.streams?.strides[0]?.stride
      const v = r.variable ? catalog.get(r.variable) : undefined
      const reach = tlb.entries * tlb.pageSize
      const bigger: TlbLevelConfig[] = tlbs.map((t) => (t.pageSize < HUGE_PAGE ? { ...t, pageSize: HUGE_PAGE } : t))
      const changed = bigger.some((t, i) => t.pageSize !== tlbs[i]!.pageSize)
      out.push({
        diagnosis: 'tlb',
        references: [r.id],
        variables: r.variable ? [r.variable] : [],
        locations: [r.file !== null && r.line !== null ? `${r.file.slice(r.file.lastIndexOf('/') + 1)}:${r.line}` : r.pc],
        misses: s.misses,
        share: s.misses / total,
        title: `TLB misses: ${r.id}${r.sourceExpr && r.sourceExpr.length <= 40 ? ` (${r.sourceExpr.trim()})` : ''}`,
        evidence: [
          `${tlb.name} miss ratio ${fixed(s.misses / accesses)} (${count(s.misses)} of ${count(accesses)}; ${pct(s.misses / total)} of the ${tlb.name}'s misses)`,
          `the ${tlb.name} maps ${tlb.entries} pages of ${kib(tlb.pageSize)} = ${kib(reach)}`,
          ...(stride !== undefined && Math.abs(stride) >= tlb.pageSize ? [`stride ${Math.abs(stride)} bytes ≥ the ${kib(tlb.pageSize)} page: every access is on a new page`] : []),
          ...(v?.size ? [`${v.name} spans ${size(v.size)} (${count(Math.ceil(v.size / tlb.pageSize))} pages)`] : [])
        ],
        suggestion: `Nearly every access needs a translation the ${tlb.name} no longer holds. Keep the fields the loop reads together in fewer pages (move the hot field out of large records into its own array), block the loop so it stays within ${tlb.entries} pages at a time, or map ${r.variable ?? 'the data'} with huge pages (madvise(MADV_HUGEPAGE) or transparent huge pages).`,
        rules: ['SIGMA 3.1: data TLB simulation', 'METRIC Fig. 8: high regularity with a high miss rate → access inefficiency'],
        ...(changed ? { action: { kind: 'tlb' as const, label: `Try ${kib(HUGE_PAGE)} pages`, tlb: bigger } } : {})
      })
    }
  }
  return out
}

/**
 * The advisor's cards for data structures threads share (issue 50), from the schedule-
 * independent line sharing (line-sharing.ts), rolled up per data structure.
 *
 * Rules, first:
 *  - A data structure whose shared lines' fine-interleaving estimate is mostly false sharing
 *    (threads write different bytes of one line) is `false-sharing`; mostly true sharing
 *    (the same bytes) is `true-sharing`. Structures with no estimated coherence miss get no card.
 *  - The card's `misses` is the fine-interleaving estimate (an upper bound on the coherence
 *    misses of the threads running side by side), and its evidence gives the recorded figure
 *    beside it, each named; `share` is the estimate over the estimate plus the run's misses at
 *    the level (the run's one hierarchy has no coherence misses).
 *  - False sharing of an array of elements smaller than a line gets a padding what-if: each
 *    element on its own line (SIGMA internal padding: dims [n, 1] of the element size, the inner
 *    dimension grown until the element stride is a whole number of lines), simulated on cores
 *    with the threads interleaved.
 */
import type { AdviceItem, CacheLevelConfig, LayoutFilter, SharedStructure } from '../../../shared/domain'

export interface StructureLayout {
  size: number
  elementSize: number | null
}

export interface SharingAdviceContext {
  lineSize: number
  levels: Array<CacheLevelConfig & { shared?: boolean }>
  totalMisses: number
  /** Reference id -> "file:line". */
  locationOf: (reference: string) => string | null
  layoutOf: (variable: string) => StructureLayout | null
}

const n = (x: number) => x.toLocaleString('en-US')

/** The padding that puts each element of an array on its own line, or null when it cannot. */
export function elementPerLine(variable: string, layout: StructureLayout | null, lineSize: number): LayoutFilter | null {
  if (!layout || !layout.elementSize || layout.elementSize >= lineSize || layout.size % layout.elementSize !== 0) return null
  const count = layout.size / layout.elementSize
  if (count < 2) return null
  // The element stride grows to a whole number of lines (24-byte elements: 8 of them, 3 lines),
  // so every element starts at the same offset in a line of its own.
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
  return { kind: 'internal', variable, dim: 1, extent: lineSize / gcd(layout.elementSize, lineSize), order: 'row', dims: [count, 1], elementSize: layout.elementSize }
}

/** The `stride simulate` flags of a multi-core what-if (after the session's path). */
export function coresFlags(cores: number, interleave: number, levels: SharingAdviceContext['levels'], layout: LayoutFilter[]): string {
  const caches = levels.map((l) => `--cache ${l.name}:${l.size}:${l.assoc}:${l.lineSize}:${l.policy}${l.shared ? ':shared' : ''}`).join(' ')
  const pads = layout.flatMap((f) =>
    f.kind === 'external' ? [`--pad ${f.variable}=${f.bytes}`] : [...(f.dims ? [`--dims ${f.variable}=${f.dims.join('x')}${f.elementSize ? `@${f.elementSize}` : ''}`] : []), `--pad-dim ${f.variable}=${f.dim}:${f.extent}${f.order === 'column' ? ':col' : ''}`]
  )
  return [`--cores ${cores}`, `--interleave ${interleave}`, caches, ...pads].join(' ')
}

export function sharingAdvice(structures: SharedStructure[], ctx: SharingAdviceContext): AdviceItem[] {
  const items: AdviceItem[] = []
  for (const s of structures) {
    const est = s.fineEstimate.trueSharing + s.fineEstimate.falseSharing
    if (est === 0) continue
    const falseSharing = s.fineEstimate.falseSharing > s.fineEstimate.trueSharing
    const recorded = s.recorded.trueSharing + s.recorded.falseSharing
    const locations = [...new Set(s.references.map((r) => ctx.locationOf(r) ?? r))]
    const fields = s.fieldsByThread.map((t) => `thread ${t.thread}: ${t.fields.join(', ')}`).join('; ')
    const lineWord = s.lines === 1 ? '1 line' : `${n(s.lines)} lines`
    const evidence = [
      falseSharing
        ? `${lineWord} of ${s.variable} written by ${s.threads.length} threads at different bytes (${fields})`
        : `${lineWord} of ${s.variable} where ${s.threads.length} threads write the same bytes (${fields})`,
      `coherence misses with the threads finely interleaved on their own cores (estimate, an upper bound): ${n(est)} (false sharing ${n(s.fineEstimate.falseSharing)}, true sharing ${n(s.fineEstimate.trueSharing)})`,
      `in the recorded order: ${n(recorded)} (Valgrind ran each thread in long slices; the threads' accesses to these lines alternated ${n(s.interleavings)} times)`
    ]
    const cores = Math.max(2, s.threads.length)
    // What both diagnoses say alike: the structure, its references and lines, the estimate.
    const common = { references: s.references, variables: [s.variable], locations, misses: est, share: est / (est + ctx.totalMisses), evidence }
    if (falseSharing) {
      const pad = elementPerLine(s.variable, ctx.layoutOf(s.variable), ctx.lineSize)
      const layout = pad ? [pad] : []
      items.push({
        diagnosis: 'false-sharing',
        ...common,
        title: `False sharing: ${s.variable} (${s.threads.length} threads write different bytes of ${lineWord})`,
        suggestion: pad
          ? `put each element of ${s.variable} on its own ${ctx.lineSize}-byte line (pad the element type to ${ctx.lineSize} bytes and align the array, e.g. __attribute__((aligned(${ctx.lineSize})))), or give each thread its own copy`
          : `keep the fields each thread writes on lines of their own (pad and align them to ${ctx.lineSize} bytes), or give each thread its own copy`,
        rules: ['bytes of one line written by different threads: false sharing whatever the schedule'],
        ...(pad
          ? { action: { kind: 'cores' as const, label: `each element of ${s.variable} on its own line, on ${cores} cores`, cores, interleave: 1, layout, command: coresFlags(cores, 1, ctx.levels, layout) } }
          : {})
      })
    } else {
      items.push({
        diagnosis: 'true-sharing',
        ...common,
        title: `True sharing: ${s.variable} (${s.threads.length} threads write the same bytes)`,
        suggestion: `padding cannot help: the threads update the same data; give each thread its own copy (combined at the end) or update it less often`,
        rules: ['the same bytes written by different threads: true sharing']
      })
    }
  }
  return items
}

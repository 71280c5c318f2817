/**
 * The advisor's rules for one hot reference outside a conflict cycle (see diagnose.ts's
 * header for the list): irregular forms, large strides and column walks, short-stride
 * streams by the class of their misses, and the fallback that gives every reference holding
 * a large share of the misses a diagnosis.
 */
import { INFERRED } from '../../../shared/dims-text'
import type { AdviceAction, AdviceItem, CacheLevelConfig, LayoutFilter, RunReport, VariableInfo } from '../../../shared/domain'
import { accessForm, type AccessForm, type FormInput } from './access-form'
import {
  classClause,
  dominantClass,
  fixed,
  IRREGULAR,
  kib,
  LOW_SPATIAL_REUSE,
  missClause,
  named,
  pct,
  REGULAR,
  reuseClause,
  setsClause,
  size,
  streamClause,
  strideSetsClause,
  type MakeItem,
  type RefFacts
} from './facts'
import { computeSetPadding, isRefusal } from './padding'
import { evictorStory, type StructureEvictions } from './evictor-facts'

const LONG_STREAM = 100
/** A reference holding at least this share of the level's misses always gets a diagnosis. */
export const LARGE_SHARE = 0.05

export interface RuleContext {
  cache: CacheLevelConfig
  report: RunReport
  byId: Map<string, RefFacts>
  catalog: Map<string, VariableInfo>
  totalMisses: number
  item: MakeItem
  /** Which data structures evict which at the level (the run's evictor lists rolled up). */
  evictions: StructureEvictions
  /** Whether a file's loops can be changed and simulated so (AdviceOptions.transformable). */
  transformable: (file: string) => boolean
}

/** Stride in elements when the element size is known (Mohan's strides are in elements). */
function strideElements(f: RefFacts): number | null {
  return f.stride && f.elementSize ? Math.abs(f.stride.stride) / f.elementSize : null
}

function isLargeStride(f: RefFacts, line: number): boolean {
  if (!f.stride) return false
  const el = strideElements(f)
  return Math.abs(f.stride.stride) >= line || (el !== null && el >= 32)
}

function prefetcher(ctx: RuleContext, prefetch: 'stride' | 'next-line'): AdviceAction | undefined {
  const { cache, report } = ctx
  return cache.prefetch === prefetch
    ? undefined
    : { kind: 'levels', label: `Try a ${prefetch} prefetcher at ${cache.name}`, levels: report.config.levels.map((l) => (l.name === cache.name ? { ...l, prefetch } : l)) }
}

function biggerCache(ctx: RuleContext): AdviceAction {
  const bigger = { ...ctx.cache, size: ctx.cache.size * 2 }
  return { kind: 'levels', label: `Try ${ctx.cache.name} ${kib(bigger.size)}`, levels: ctx.report.config.levels.map((l) => (l.name === ctx.cache.name ? bigger : l)) }
}

/**
 * Short sequential runs (a copy of short matches, an output buffer written piece by piece):
 * most streams have one small stride and every line is used whole, so the addresses are predictable within a run even though the
 * runs are too short for the regularity metric; calling them irregular would contradict their
 * own stride and reuse figures.
 */
function isShortRuns(f: RefFacts, line: number): boolean {
  return f.stride !== null && f.stride.fraction >= 0.5 && f.stride.stride !== 0 && Math.abs(f.stride.stride) < line && f.spatialReuse !== null && f.spatialReuse >= 0.9
}

export function referenceItem(f: RefFacts, ctx: RuleContext): AdviceItem | null {
  if (f.regularity !== null && f.regularity < REGULAR && isShortRuns(f, ctx.cache.lineSize) && f.ratio >= 0.02) return shortRunsItem(f, ctx)
  if (f.regularity !== null && f.regularity < IRREGULAR && f.ratio >= 0.1) return irregularItem(f, ctx)
  if (f.regularity !== null && f.regularity >= REGULAR && f.stride) {
    if (isLargeStride(f, ctx.cache.lineSize)) {
      if (f.ratio >= 0.1) return largeStrideItem(f, ctx)
    } else {
      const own = shortStrideItem(f, ctx)
      if (own) return own
    }
  }
  return f.misses >= LARGE_SHARE * ctx.totalMisses ? classItem(f, ctx) : null
}

/** "`mov 0x8(%rdi),%rdi` (pool_Read_9@sum_list+0x10, p->next) loads the next address through the last one". */
function chaseClause(f: RefFacts, via: FormInput | null): string {
  if (!via) return `${f.ref.sourceExpr ?? f.ref.id} reads through a pointer loaded by the walk`
  const who = via.id === f.ref.id ? 'it' : `${via.id}${via.sourceExpr ? `, ${via.sourceExpr}` : ''}`
  return `\`${via.disasm?.replace(/\s+/g, ' ').trim()}\` (${who}) loads the next address through the last one: a pointer chase`
}

function irregularItem(f: RefFacts, ctx: RuleContext): AdviceItem {
  const { cache, item } = ctx
  const peers = [...ctx.byId.values()].map((p) => p.ref)
  const form = accessForm(f.ref, peers)
  const evidence = [
    streamClause(f),
    missClause(f, cache.name),
    reuseClause(f, cache.lineSize),
    f.temporalFraction === null ? null : `temporal hit fraction ${fixed(f.temporalFraction)}`,
    form.form === 'pointer-chase' ? `the address comes from the previous element: ${chaseClause(f, form.via)}` : null,
    form.form === 'gather' ? `the address is indexed (${f.ref.disasm?.trim() ?? f.ref.sourceExpr ?? 'an index register'}): a gather` : null
  ].filter((x): x is string => x !== null)
  const text = IRREGULAR_FORMS[form.form]
  const story = evictorStory(ctx.evictions, f.ref.variable, cache.name, kib(cache.size))
  if (story) evidence.push(story.evidence)
  return item([f], {
    diagnosis: text.diagnosis,
    title: `${text.title}: ${named(f)}`,
    evidence,
    suggestion: story ? `${story.change} ${text.suggestion}` : text.suggestion,
    rules: ['METRIC Fig. 8: regularity ratio (irregular → cache hinting)', text.rule]
  })
}

function shortRunsItem(f: RefFacts, ctx: RuleContext): AdviceItem {
  const { cache, item } = ctx
  const story = evictorStory(ctx.evictions, f.ref.variable, cache.name, kib(cache.size))
  const stride = f.stride!.stride
  const runs = `runs of ${Math.round(f.meanStream ?? 0)} accesses on average, ${pct(f.stride!.fraction)} of them stride ${stride} (regularity ${fixed(f.regularity ?? 0)}: runs too short for the metric to call regular)`
  const evidence = [runs, missClause(f, cache.name), reuseClause(f, cache.lineSize), story?.evidence ?? null].filter((x): x is string => x !== null)
  return item([f], {
    diagnosis: 'streaming',
    title: `Short sequential runs: ${named(f)}`,
    evidence,
    suggestion: `Its runs are short (${Math.round(f.meanStream ?? 0)} accesses on average) but ${pct(f.stride!.fraction)} of them step ${stride} bytes and every line it brings in is used whole, so its misses are the first touch of each line of the data it walks, not scattered addresses. A next-line prefetcher follows such runs; otherwise only touching less data removes them.${story && story.structures.length > 1 ? ` ${story.change}` : ''}`,
    rules: ['METRIC Fig. 8: spatial reuse (high: whole lines used), % distribution of strides', 'Mohan Table 1: prefetching (short strides)'],
    action: prefetcher(ctx, 'next-line')
  })
}

/** What each form of irregular address is told: a pointer chase has no index vector to gather through. */
const IRREGULAR_FORMS: Record<AccessForm, { diagnosis: AdviceItem['diagnosis']; title: string; suggestion: string; rule: string }> = {
  'pointer-chase': {
    diagnosis: 'pointer-chase',
    title: 'Pointer chase',
    suggestion:
      'Each address is loaded by the previous access (a linked structure walked node by node), so no prefetcher can run ahead and the misses wait on each other. Allocate the nodes contiguously in the order they are walked (one array or pool, relinked after sorting), or keep the fields the walk reads in an array and iterate by index; prefetching the node after next helps only when each node takes real work.',
    rule: 'Mohan Table 1: irregular (< 0.6) → data layout; there is no indirection vector to gather through in a pointer chase'
  },
  gather: {
    diagnosis: 'gather',
    title: 'Indexed gather',
    suggestion:
      'Prefetching cannot predict these addresses: sort the index vector (or the work) so consecutive indices touch nearby elements, or gather the elements through the index vector into a contiguous buffer first (scatter/gather); load them with non-temporal hints if they are not reused.',
    rule: 'Mohan Table 1: scatter/gather using an indirection vector (irregular < 0.6)'
  },
  unknown: {
    diagnosis: 'irregular',
    title: 'Irregular accesses',
    suggestion:
      'Prefetching cannot predict these addresses: put the data used together next to each other (reorder or group the elements in the order they are used), or load them with non-temporal hints so they stop displacing data that is reused.',
    rule: 'Mohan Table 1: irregular (< 0.6) → data layout, cache hints'
  }
}

/** The row length of `v` in bytes when it is a 2-D-or-more array. */
function rowBytes(v: VariableInfo | null): number | null {
  if (!v?.dims || v.dims.length < 2 || !v.elementSize) return null
  return v.dims.slice(1).reduce((a, b) => a * b, 1) * v.elementSize
}

/** Internal padding that grows the innermost dimension of `v` by one line. */
function rowPadding(v: VariableInfo | null, line: number): LayoutFilter | null {
  if (!v?.dims || v.dims.length < 2 || !v.elementSize || v.start === null || line % v.elementSize !== 0) return null
  const dim = v.dims.length - 1
  return { kind: 'internal', variable: v.name, dim, extent: v.dims[dim]! + line / v.elementSize, order: 'row' }
}

/** Whether the run already transforms the loops named by file:line (none is offered twice). */
function transformed(ctx: RuleContext, file: string, line: number): boolean {
  return (ctx.report.config.transforms ?? []).some((t) => t.file === file && t.line === line)
}

/** A code change the advice can simulate (a loop transform). */
type TransformAction = Extract<AdviceAction, { kind: 'transform' }>

/**
 * The loops around a reference's line interchanged (its line names the loop around the
 * innermost loop holding it); null without a source line.
 */
function interchangeAt(f: RefFacts, ctx: RuleContext): TransformAction | null {
  const { file, line } = f.ref
  if (!file || !line || transformed(ctx, file, line) || !ctx.transformable(file)) return null
  const at = `${file.slice(file.lastIndexOf('/') + 1)}:${line}`
  return { kind: 'transform', label: `Interchange the loops around ${at}`, transforms: [{ kind: 'interchange', file, line }] }
}

/**
 * The two loops around a reference's line tiled: B x B iterations, B the largest power of two
 * whose B lines per reference for two references fit the cache at least B times over.
 */
function tileAt(f: RefFacts, ctx: RuleContext): TransformAction | null {
  const { file, line } = f.ref
  const cache = ctx.cache
  if (!file || !line || transformed(ctx, file, line) || !ctx.transformable(file)) return null
  let tile = 1
  while ((tile * 2) ** 2 * 2 * cache.lineSize <= cache.size) tile *= 2
  const at = `${file.slice(file.lastIndexOf('/') + 1)}:${line}`
  return { kind: 'transform', label: `Tile the loops around ${at} by ${tile}`, transforms: [{ kind: 'tile', file, line, tile }] }
}

function largeStrideItem(f: RefFacts, ctx: RuleContext): AdviceItem {
  const { cache, item } = ctx
  const line = cache.lineSize
  const stride = Math.abs(f.stride!.stride)
  const el = strideElements(f)
  const row = rowBytes(f.variable)
  const column = row !== null && stride === row
  const conflict = dominantClass(f.classes) === 'conflict'
  const arrayName = f.ref.variable ?? 'the array'
  // A run whose layout already pads this array's rows gets no second padding on top.
  const rowsPadded = (ctx.report.config.layout ?? []).some((l) => l.kind === 'internal' && l.variable === f.ref.variable)
  const pad = conflict && !rowsPadded ? rowPadding(f.variable, line) : null
  const evidence = [
    streamClause(f),
    missClause(f, cache.name),
    el !== null ? `stride ${stride} bytes = ${el} elements of ${f.elementSize} bytes${column ? ` = one row of ${arrayName} (${f.variable!.dims!.join('×')}${f.variable!.dimsFrom === 'strides' ? `, ${INFERRED}` : ''})` : ''}` : `stride ${stride} bytes ≥ the ${line}-byte line`,
    reuseClause(f, line),
    classClause(f.classes, cache),
    conflict ? strideSetsClause(f, cache) : null
  ].filter((x): x is string => x !== null)
  const walk = column ? `walks a column of ${arrayName}` : `jumps ${stride} bytes per access`
  const capacity = dominantClass(f.classes) === 'capacity'
  // A stride of a line or more puts consecutive accesses on different lines; whether they miss
  // depends on reuse between passes, which the miss ratio says (0.13 on 2mm: most hit).
  const mostlyHit = f.ratio < 0.5 ? ` Most of those accesses still hit (miss ratio ${fixed(f.ratio)}: the lines stay cached between passes), so at most its ${f.misses.toLocaleString('en-US')} misses can be saved.` : ''
  let suggestion = `${f.ref.sourceExpr?.trim() || f.ref.id} ${walk}, so consecutive accesses touch different ${line}-byte lines.${mostlyHit} Interchange the loops so the innermost loop walks contiguous memory${column ? ' (for a matrix product: i-k-j order)' : ''}, or block (tile) the loops so the lines of ${arrayName} a tile uses stay cached.`
  if (capacity)
    suggestion += ` Its misses are capacity misses (a fully associative ${kib(cache.size)} ${cache.name} misses them too): ${arrayName}${f.variable?.size ? ` (${size(f.variable.size)})` : ''} does not stay in ${cache.name} between two uses of a line, so blocking is what removes them; a stride prefetcher can hide them.`
  if (conflict)
    suggestion += ` The stride also maps those lines onto few ${cache.name} sets, so they evict each other before their next use (a fully associative cache of the same size would keep them)${pad ? `: padding each row of ${arrayName} by one line (${f.variable!.dims![pad.kind === 'internal' ? pad.dim : 0]} → ${pad.kind === 'internal' ? pad.extent : 0} elements) spreads them over the sets` : ''}.`
  const action: AdviceAction | undefined = pad
    ? { kind: 'layout', label: `Pad the rows of ${arrayName} to ${pad.kind === 'internal' ? pad.extent : 0} elements`, layout: [pad] }
    : prefetcher(ctx, 'stride')
  return item([f], {
    diagnosis: 'large-stride',
    title: `${column ? 'Column walk' : 'Large stride'}: ${named(f)}`,
    evidence,
    suggestion,
    rules: [
      'METRIC Fig. 8: high regularity with a high miss rate → access inefficiency',
      'Mohan Table 1: loop interchange (very large strides 32+); copying, stream remapping (long streams, large strides); tiling',
      ...(conflict ? ['METRIC 10.3: padding against set conflicts'] : [])
    ],
    action,
    codeAction: (capacity ? tileAt(f, ctx) : interchangeAt(f, ctx)) ?? undefined
  })
}

function shortStrideItem(f: RefFacts, ctx: RuleContext): AdviceItem | null {
  const { cache, byId, item } = ctx
  const line = cache.lineSize
  const evidence = (...more: Array<string | null>) => [streamClause(f), missClause(f, cache.name), ...more].filter((x): x is string => x !== null)
  const top = (f.ref.evictors ?? []).filter((e) => e.level === cache.name).sort((a, b) => b.count - a.count)[0]
  const topFacts = top ? byId.get(top.by) : undefined
  const irregularEvictor = topFacts?.regularity != null && topFacts.regularity < IRREGULAR
  const kind = dominantClass(f.classes)

  if (kind === 'conflict') return conflictItem(f, ctx, top && !irregularEvictor ? topFacts : undefined, evidence(reuseClause(f, line), classClause(f.classes, cache), setsClause(f, cache), top ? `top evictor ${top.by} (${pct(top.fraction)} of its evictions)` : null))
  if (kind === 'capacity') return capacityItem([f], ctx, evidence(reuseClause(f, line), classClause(f.classes, cache)))

  const perLine = Math.max(1, Math.abs(f.stride!.stride)) / line // compulsory miss ratio of a stream
  if (f.spatialReuse !== null && f.spatialReuse >= LOW_SPATIAL_REUSE && f.ratio >= 0.02 && f.ratio <= 1.5 * perLine) {
    const long = (f.meanStream ?? 0) >= LONG_STREAM
    // METRIC 10.1: a stream walked again later misses again when irregular accesses evicted it in between.
    const swept = irregularEvictor ? ` Between passes the irregular ${top!.by} evicts its lines; with that reference hinted non-temporal they could stay for the next pass.` : ''
    return item([f], {
      diagnosis: 'streaming',
      title: `Streaming misses: ${f.ref.id}`,
      evidence: evidence(
        reuseClause(f, line),
        `about one miss per line (a stride-${f.stride!.stride} stream over ${line}-byte lines misses ${fixed(perLine, 4)} of the time)`,
        irregularEvictor ? `top evictor ${top!.by} (${pct(top!.fraction)} of its evictions) is irregular` : null
      ),
      suggestion:
        (long
          ? "The lines are used fully; each miss is a line's first touch in a pass. Prefetch along the stream (long streams with short strides)."
          : "The lines are used fully; each miss is a line's first touch in a pass. Streams are short, so prefetching will gain little; fuse loops that walk the same data.") + swept,
      rules: ['METRIC Fig. 8: mean stream length, % distribution of strides', long ? 'Mohan Table 1: prefetching (long streams 100+, short strides)' : 'Mohan Table 1: loop fusion'],
      action: long ? prefetcher(ctx, 'next-line') : undefined
    })
  }
  if (f.spatialReuse !== null && f.spatialReuse < LOW_SPATIAL_REUSE && f.ratio > 1.5 * perLine)
    return item([f], {
      diagnosis: 'low-spatial-reuse',
      title: `Lines evicted before use: ${f.ref.id}`,
      evidence: evidence(reuseClause(f, line), classClause(f.classes, cache), top ? `top evictor ${top.by} (${pct(top.fraction)} of its evictions)` : null),
      suggestion: irregularEvictor
        ? `A stride-${f.stride!.stride} stream should use whole lines; the irregular ${top!.by} evicts them first. Load that reference with non-temporal hints (or gather its data first) so these lines stay.`
        : `A stride-${f.stride!.stride} stream should use whole lines; they are evicted first${top ? ` (mostly by ${top.by})` : ''}. Change the layout or the order of the competing accesses.`,
      rules: ['METRIC Fig. 8: spatial reuse (low with regular, low-stride accesses)']
    })
  return null
}

/** A reference whose misses are mostly set conflicts (checked against the fully associative shadow). */
function conflictItem(f: RefFacts, ctx: RuleContext, evictor: RefFacts | undefined, evidence: string[]): AdviceItem {
  const { cache, catalog, item } = ctx
  const rules = ['METRIC Fig. 8: spatial reuse (low with regular, low-stride accesses → conflict misses)', 'Hill & Smith: conflict = misses a fully associative cache of the same size does not have']
  const other = evictor?.ref.variable && evictor.ref.variable !== f.ref.variable ? evictor.ref.variable : null
  if (other && f.ref.variable) {
    const pair = [catalog.get(f.ref.variable), catalog.get(other)].map((v, i) => v ?? ({ name: i === 0 ? f.ref.variable! : other, kind: 'unknown', start: null } as VariableInfo))
    const padding = computeSetPadding(pair, cache)
    if (!isRefusal(padding) && padding.filters.length > 0) {
      const steps = padding.filters.map((p) => `${p.variable} +${kib(p.kind === 'external' ? p.bytes : 0)}`).join(', ')
      return item([f], {
        diagnosis: 'conflict',
        title: `Conflict misses: ${named(f)} evicted by ${evictor!.ref.id}`,
        evidence,
        suggestion: `${f.ref.variable} and ${other} map to the same ${cache.name} sets and evict each other although both would fit: pad them apart; try ${steps}.`,
        rules: [...rules, 'METRIC 10.3: pad the arrays'],
        action: { kind: 'layout', label: `Pad ${steps}`, layout: padding.filters }
      })
    }
  }
  return item([f], {
    diagnosis: 'conflict',
    title: `Conflict misses: ${named(f)}`,
    evidence,
    suggestion: `Its lines map to the same ${cache.name} sets as the data competing with them and leave before they are used, although the data would fit: change the layout (pad the arrays or rows apart) or the order of the competing accesses.`,
    rules
  })
}

export function capacityItem(members: RefFacts[], ctx: RuleContext, evidence: string[]): AdviceItem {
  const { cache, item } = ctx
  const label = members.map((m) => named(m)).join(', ')
  // Irregular addresses (a hash table, a tree) have no loop nest whose tiling bounds the data
  // they touch: what to change is the structures competing for the level, named by evictions.
  if (members.every((m) => m.regularity !== null && m.regularity < IRREGULAR)) {
    const story = evictorStory(ctx.evictions, members[0]!.ref.variable, cache.name, kib(cache.size))
    return item(members, {
      diagnosis: 'capacity',
      title: `Capacity misses: ${label}`,
      evidence: story ? [...evidence, story.evidence] : evidence,
      suggestion: `The data it reaches at irregular places does not fit in ${cache.name} between its uses (a fully associative cache of the same size misses too).${story ? ` ${story.change}` : ''} A bigger ${cache.name} shows how much room it needs.`,
      rules: ['METRIC Fig. 8: evictor references', 'Hill & Smith: capacity = misses a fully associative cache of the same size has too'],
      action: biggerCache(ctx)
    })
  }
  return item(members, {
    diagnosis: 'capacity',
    title: `Capacity misses: ${label}`,
    evidence,
    suggestion: `The data does not fit in ${cache.name} between its uses (a fully associative cache of the same size misses too): tile/block the loops so the working set fits, or try a ${kib(cache.size * 2)} ${cache.name}.`,
    rules: ['METRIC Fig. 8: evictor references (high spatial reuse → capacity)', 'Mohan Table 1: tiling'],
    action: biggerCache(ctx),
    codeAction: tileAt(members[0]!, ctx) ?? undefined
  })
}

/** The fallback: a reference with a large share of the misses and no pattern above, by its dominant miss class. */
function classItem(f: RefFacts, ctx: RuleContext): AdviceItem | null {
  const { cache, item } = ctx
  const kind = dominantClass(f.classes)
  const evidence = [streamClause(f), missClause(f, cache.name), reuseClause(f, cache.lineSize), classClause(f.classes, cache), kind === 'conflict' ? setsClause(f, cache) : null].filter((x): x is string => x !== null)
  if (kind === 'conflict') return conflictItem(f, ctx, undefined, evidence)
  if (kind === 'capacity') return capacityItem([f], ctx, evidence)
  if (kind === 'compulsory')
    return item([f], {
      diagnosis: 'streaming',
      title: `First-touch misses: ${named(f)}`,
      evidence,
      suggestion: 'Most of its misses are the first touch of each line: only touching less data (smaller types, fewer passes fused into one) or prefetching ahead removes them.',
      rules: ['Hill & Smith: compulsory misses']
    })
  return null
}

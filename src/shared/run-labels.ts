/**
 * Run labels: what tells a session's runs apart. A run's label says what differs from the run
 * it came from (its parent: the run a what-if was made from), or from the session's first run
 * when no parent is recorded: "+ stride prefetcher on L1", "pad A by 64 B", "L1 64K (was 32K)".
 * The first run (and a run without a base) reads as its whole hierarchy, "L1 32K 8-way 64B".
 * A label the user gave replaces the derived one. Pure: the store, the CLI and the renderer
 * all read labels from here.
 */
import type { CacheLevelConfig, HierarchyConfig, LayoutFilter, LoopTransform, TlbLevelConfig } from './domain'
import { formatSize } from './sizes'

/** The longest label a user may give (the API and the CLI check it). */
export const MAX_RUN_LABEL = 200

const bytes = (n: number): string => `${formatSize(n)}${/\d$/.test(formatSize(n)) ? 'B' : ''}`
const prefetcherName = (p: CacheLevelConfig['prefetch']): string | null => (p && p !== 'none' ? `${p} prefetcher` : null)
const writePolicy = (l: CacheLevelConfig): string => l.writePolicy ?? 'write-back'
const writeAllocate = (l: CacheLevelConfig): boolean => l.writeAllocate ?? true

/** One cache level in a few words: `L1 32K 8-way 64B`, with what is not the default after it. */
export function describeLevel(l: CacheLevelConfig): string {
  const extras = [
    l.policy && l.policy !== 'lru' ? l.policy : null,
    l.writePolicy === 'write-through' ? 'write-through' : null,
    l.writeAllocate === false ? 'no-write-allocate' : null,
    l.inclusive ? 'inclusive' : null,
    prefetcherName(l.prefetch)
  ].filter((e): e is string => e !== null)
  return [`${l.name} ${formatSize(l.size)} ${l.assoc}-way ${bytes(l.lineSize)}`, ...extras].join(' ')
}

export function describeTlb(t: TlbLevelConfig): string {
  return `${t.name} ${t.entries} entries ${t.assoc}-way ${bytes(t.pageSize)} pages${t.policy && t.policy !== 'lru' ? ` ${t.policy}` : ''}`
}

export function describeFilter(f: LayoutFilter): string {
  if (f.kind === 'external') return `pad ${f.variable} by ${bytes(f.bytes)}`
  return `${f.variable} dimension ${f.dim} to ${f.extent}${f.order === 'column' ? ' (column-major)' : ''}`
}

/** `interchange loops at mm.c:7`, `tile loops at t.c:12 by 32`. */
export function describeTransform(t: LoopTransform): string {
  const place = `${t.file.slice(t.file.lastIndexOf('/') + 1)}:${t.line}`
  return t.kind === 'interchange' ? `interchange loops at ${place}` : `tile loops at ${place} by ${t.tile}`
}

/** A whole hierarchy: levels, TLB levels, layout filters, loop transforms. */
export function describeHierarchy(c: HierarchyConfig): string {
  const parts = [...c.levels.map(describeLevel), ...(c.tlb ?? []).map(describeTlb), ...(c.layout ?? []).map(describeFilter), ...(c.transforms ?? []).map(describeTransform)]
  return `${parts.join(', ')}${c.cachegrindCompatible ? ' (Cachegrind-compatible)' : ''}`
}

function levelChanges(l: CacheLevelConfig, was: CacheLevelConfig): string[] {
  const out: string[] = []
  if (l.size !== was.size) out.push(`${l.name} ${formatSize(l.size)} (was ${formatSize(was.size)})`)
  if (l.assoc !== was.assoc) out.push(`${l.name} ${l.assoc}-way (was ${was.assoc}-way)`)
  if (l.lineSize !== was.lineSize) out.push(`${l.name} ${bytes(l.lineSize)} lines (was ${bytes(was.lineSize)})`)
  if ((l.policy ?? 'lru') !== (was.policy ?? 'lru')) out.push(`${l.name} ${l.policy ?? 'lru'} (was ${was.policy ?? 'lru'})`)
  if ((l.policy === 'random' || was.policy === 'random') && (l.seed ?? 1) !== (was.seed ?? 1)) out.push(`${l.name} seed ${l.seed ?? 1} (was ${was.seed ?? 1})`)
  if (writePolicy(l) !== writePolicy(was)) out.push(`${l.name} ${writePolicy(l)} (was ${writePolicy(was)})`)
  if (writeAllocate(l) !== writeAllocate(was)) out.push(`${l.name} ${writeAllocate(l) ? 'write-allocate' : 'no-write-allocate'} (was ${writeAllocate(was) ? 'write-allocate' : 'no-write-allocate'})`)
  if (Boolean(l.inclusive) !== Boolean(was.inclusive)) out.push(`${l.name} ${l.inclusive ? 'inclusive' : 'not inclusive'}`)
  const pf = prefetcherName(l.prefetch)
  const wasPf = prefetcherName(was.prefetch)
  if (pf !== wasPf) out.push(pf && wasPf ? `${l.name} ${pf} (was ${wasPf})` : pf ? `+ ${pf} on ${l.name}` : `- ${wasPf} on ${l.name}`)
  return out
}

function tlbChanges(t: TlbLevelConfig, was: TlbLevelConfig): string[] {
  const out: string[] = []
  if (t.entries !== was.entries) out.push(`${t.name} ${t.entries} entries (was ${was.entries})`)
  if (t.assoc !== was.assoc) out.push(`${t.name} ${t.assoc}-way (was ${was.assoc}-way)`)
  if (t.pageSize !== was.pageSize) out.push(`${t.name} ${bytes(t.pageSize)} pages (was ${bytes(was.pageSize)})`)
  if ((t.policy ?? 'lru') !== (was.policy ?? 'lru')) out.push(`${t.name} ${t.policy ?? 'lru'} (was ${was.policy ?? 'lru'})`)
  return out
}

/** Levels matched by name: changed, added (`+ L2 ...`) and removed (`- L2`), in the run's order. */
function byName<T extends { name: string }>(now: readonly T[], was: readonly T[], describe: (x: T) => string, changes: (x: T, w: T) => string[]): string[] {
  const out: string[] = []
  for (const x of now) {
    const w = was.find((y) => y.name === x.name)
    out.push(...(w ? changes(x, w) : [`+ ${describe(x)}`]))
  }
  for (const w of was) if (!now.some((x) => x.name === w.name)) out.push(`- ${w.name}`)
  return out
}

const filterKey = (f: LayoutFilter): string => JSON.stringify(f.kind === 'external' ? [f.kind, f.variable, f.bytes] : [f.kind, f.variable, f.dim, f.extent, f.order ?? 'row'])

/** What `config` changes from `base`, each change a few words; empty when they simulate the same. */
export function configChanges(config: HierarchyConfig, base: HierarchyConfig): string[] {
  const out = [...byName(config.levels, base.levels, describeLevel, levelChanges), ...byName(config.tlb ?? [], base.tlb ?? [], describeTlb, tlbChanges)]
  const layout = config.layout ?? []
  const baseLayout = base.layout ?? []
  const baseKeys = new Set(baseLayout.map(filterKey))
  const keys = new Set(layout.map(filterKey))
  for (const f of layout) if (!baseKeys.has(filterKey(f))) out.push(describeFilter(f))
  for (const f of baseLayout) if (!keys.has(filterKey(f))) out.push(`no ${describeFilter(f)}`)
  const transforms = (config.transforms ?? []).map(describeTransform)
  const baseTransforms = (base.transforms ?? []).map(describeTransform)
  for (const t of transforms) if (!baseTransforms.includes(t)) out.push(t)
  for (const t of baseTransforms) if (!transforms.includes(t)) out.push(`no ${t}`)
  if (Boolean(config.cachegrindCompatible) !== Boolean(base.cachegrindCompatible)) out.push(config.cachegrindCompatible ? 'Cachegrind-compatible' : 'not Cachegrind-compatible')
  return out
}

/** What a label is read from: a run's number, configuration, recorded parent and given label. */
export interface LabelSource {
  run: number
  config: HierarchyConfig
  /** The run it came from (a what-if's run), null when none was recorded. */
  parent: number | null
  /** The label the user gave, null: derived. */
  name: string | null
}

/**
 * The run a label is derived against: its recorded parent when that run is still in the
 * session, else the session's first run; null for the first run itself.
 */
export function labelBase<T extends LabelSource>(run: T, runs: readonly T[]): T | null {
  const parent = run.parent !== null && run.parent !== run.run ? runs.find((r) => r.run === run.parent) : undefined
  if (parent) return parent
  const first = runs.reduce<T | null>((a, r) => (a === null || r.run < a.run ? r : a), null)
  return first && first.run !== run.run ? first : null
}

/** The derived label (the given one aside). */
export function derivedLabel(run: LabelSource, runs: readonly LabelSource[]): string {
  const base = labelBase(run, runs)
  if (!base) return describeHierarchy(run.config)
  const changes = configChanges(run.config, base.config)
  return changes.length > 0 ? changes.join(', ') : `${describeHierarchy(run.config)} (same hierarchy as run ${base.run})`
}

/** The label shown: the user's, else the derived one. */
export function runLabel(run: LabelSource, runs: readonly LabelSource[]): string {
  return run.name ?? derivedLabel(run, runs)
}

/** A label as the user typed it, trimmed to one line; null (back to the derived label) when empty. */
export function cleanLabel(text: string): string | null {
  const one = text.replace(/\s+/g, ' ').trim()
  return one === '' ? null : one.slice(0, MAX_RUN_LABEL)
}

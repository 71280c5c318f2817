/**
 * The cache and TLB flags every command shares (`--cache NAME:SIZE:ASSOC:LINE[:POLICY[:OPTIONS]]`,
 * `--tlb`, `--cachegrind-compatible`), turned into a hierarchy checked as the API checks it.
 * Small on purpose: `stride trace --cache` checks its flags here before the program starts,
 * without loading what a simulation needs.
 */
import { StrideError } from '../../shared/errors'
import type { HierarchyConfig } from '../../shared/domain'
import type { hierarchySchema as HierarchySchema } from '../../shared/schemas'
import { parseCacheSpec, parseTlbSpec } from '../../shared/sizes'
import { flags, has, type ParsedArgs } from './args'

/** A user error of a command's flags: one line, `stride COMMAND: message`. */
export function usage(message: string, command = 'simulate'): never {
  throw new StrideError(`stride ${command}: ${message}`)
}

export function parseLevels(specs: string[], command?: string, { cores = false }: { cores?: boolean } = {}): Array<HierarchyConfig['levels'][number] & { shared?: boolean }> {
  return specs.map((spec) => {
    const parsed = parseCacheSpec(spec)
    if (typeof parsed === 'string') usage(`${parsed}.`, command)
    // One hierarchy has no cores to share a level between: said, not silently dropped.
    if (parsed.shared && !cores) usage(`--cache ${parsed.name}: the option "shared" goes with --cores N (a level shared by the cores); leave it out, or add --cores.`, command)
    return parsed
  })
}

export function parseTlbs(specs: string[], command?: string): NonNullable<HierarchyConfig['tlb']> {
  return specs.map((spec) => {
    const parsed = parseTlbSpec(spec)
    if (typeof parsed === 'string') usage(`${parsed}.`, command)
    return parsed
  })
}

/**
 * The hierarchy that `--cache ... [--tlb ...] [--cachegrind-compatible]` name, checked as the
 * API checks it; null without --cache.
 */
export async function hierarchyOfFlags(args: ParsedArgs, command: string): Promise<HierarchyConfig | null> {
  const specs = flags(args, 'cache')
  if (specs.length === 0) {
    if (flags(args, 'tlb').length > 0 || has(args, 'cachegrind-compatible')) usage('--tlb and --cachegrind-compatible go with --cache levels, e.g. --cache L1:32K:8:64.', command)
    return null
  }
  const { hierarchySchema } = await import('../../shared/schemas')
  const compatible = has(args, 'cachegrind-compatible')
  const config = checkConfig(hierarchySchema, { levels: parseLevels(specs, command), tlb: parseTlbs(flags(args, 'tlb'), command), cachegrindCompatible: compatible }, `--cache ${specs.join(' --cache ')}`, command)
  if (compatible) checkCompatible(config, command)
  return config
}

export function checkCompatible(config: HierarchyConfig, command?: string): void {
  for (const l of config.levels)
    if (l.policy !== 'lru' || l.writeAllocate === false || (l.prefetch ?? 'none') !== 'none')
      usage(`--cachegrind-compatible simulates LRU, write-allocate caches without a prefetcher (as Cachegrind does); ${l.name} is not one.`, command)
}

export function checkConfig(schema: typeof HierarchySchema, raw: unknown, what: string, command?: string): HierarchyConfig {
  const checked = schema.safeParse(raw)
  if (!checked.success) {
    const issue = checked.error.issues[0]!
    usage(`${what}${issue.path.length ? ` (${issue.path.join('.')})` : ''}: ${issue.message}.`, command)
  }
  return checked.data as HierarchyConfig
}

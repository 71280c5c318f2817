/**
 * `stride hierarchy [--json]`: the host's caches as Stride simulates them by default (the D1
 * and LL Cachegrind simulates), as `--cache` flags on stdout and where they come from on stderr.
 */
import { StrideError } from '../../shared/errors'
import { cacheFlags } from '../simulate/host-caches'
import { hostHierarchy } from '../services/host-hierarchy'
import { has, parseArgs } from './args'
import type { Io } from './io'

export async function hierarchyCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { json: {} }, 'hierarchy')
  if (args.positional.length > 0) throw new StrideError(`stride hierarchy: takes no ${args.positional[0]}; it prints this machine's caches, e.g. stride hierarchy --json.`)
  const host = hostHierarchy()
  const flags = cacheFlags(host.config)
  if (has(args, 'json')) {
    io.out(JSON.stringify({ levels: host.config.levels, flags, source: host.source, summary: host.summary, asCachegrind: host.asCachegrind, note: host.note }, null, 2))
    return 0
  }
  io.out(flags)
  io.err(host.note)
  return 0
}

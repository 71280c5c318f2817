/** Small run reports for tests of what reads them (run diffs, the CLI's tables). Never imported by production code. */
import type { ReferenceStats, RunReport } from '../domain'

/** A read reference of k.c at `line`, function f, with its L1 hits and misses. */
export function readReference(id: string, line: number, variable: string | null, hits: number, misses: number): ReferenceStats {
  return {
    id,
    pc: `0x${line}`,
    kind: 'read',
    file: 'k.c',
    line,
    function: 'f',
    variable,
    reads: hits + misses,
    writes: 0,
    levels: { L1: { hits, misses, readMisses: misses, writeMisses: 0 } }
  }
}

/** Run `run` of one 32 KiB L1 holding `refs`, its totals `l1Misses` read misses of 300 reads. */
export function l1Run(refs: ReferenceStats[], l1Misses: number, run = 1): RunReport {
  return {
    run,
    config: { levels: [{ name: 'L1', size: 32768, assoc: 8, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false },
    levels: [{ name: 'L1', reads: 300, writes: 0, readMisses: l1Misses, writeMisses: 0 }],
    lines: [],
    references: refs
  }
}

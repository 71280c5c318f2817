/**
 * Source locations of system libraries' instructions (libc, ld.so, libstdc++), kept across
 * traces (kept-files.ts says how). A whole-program trace touches about 5,000 of their
 * instructions at start-up, and naming them (llvm-symbolizer and gdb) cost about a second per
 * trace. An entry is only ever what `sourceLocations` answered for that address; installing
 * libc6-dbg or llvm changes the key, and so gives new entries.
 */
import { sourceLocations } from './addr2line'
import type { SourceLocation } from './elf-parse'
import { detachedDebugFile } from './elf-reader'
import { keptFile, keptFolder, objectIdentity, readKept, writeKept } from './kept-files'

/** Bumped when what sourceLocations answers changes form: older files are then ignored. */
const FORMAT = 1
const TOOLS = ['llvm-symbolizer', 'gdb', 'objdump', 'addr2line']

type Entry = [file: string | null, line: number | null, disasm: string | null]

export interface SymbolCacheOptions {
  /** Where the files go (default: the user's cache folder). */
  dir?: string
  /** What names the addresses not yet kept (default: sourceLocations). */
  compute?: (path: string, linkAddresses: number[]) => Promise<SourceLocation[]>
}

/** sourceLocations(path, linkAddresses), from the kept entries where there are some. */
export async function cachedSourceLocations(path: string, linkAddresses: number[], options: SymbolCacheOptions = {}): Promise<SourceLocation[]> {
  const compute = options.compute ?? sourceLocations
  const identity = objectIdentity(path, await detachedDebugFile(path), TOOLS)
  if (identity === null) return compute(path, linkAddresses)
  const key = `lines ${FORMAT}|${identity}`
  const file = keptFile(key, options.dir ?? keptFolder('symbols'))
  const entries = validEntries(await readKept(file, key))
  const missing = [...new Set(linkAddresses.filter((a) => !(a.toString(16) in entries)))]
  if (missing.length > 0) {
    const found = await compute(path, missing)
    missing.forEach((a, i) => {
      const l = found[i]
      entries[a.toString(16)] = [l?.file ?? null, l?.line ?? null, l?.disasm ?? null]
    })
    await writeKept(file, key, entries)
  }
  return linkAddresses.map((a) => {
    const [file, line, disasm] = entries[a.toString(16)]!
    return disasm === null ? { file, line } : { file, line, disasm }
  })
}

/** The kept entries that have the right form (a damaged file keeps none). */
function validEntries(kept: unknown): Record<string, Entry> {
  const out: Record<string, Entry> = {}
  if (typeof kept !== 'object' || kept === null) return out
  for (const [address, e] of Object.entries(kept)) if (isEntry(e)) out[address] = e
  return out
}

function isEntry(e: unknown): e is Entry {
  return (
    Array.isArray(e) &&
    e.length === 3 &&
    (e[0] === null || typeof e[0] === 'string') &&
    (e[1] === null || (typeof e[1] === 'number' && Number.isInteger(e[1]))) &&
    (e[2] === null || typeof e[2] === 'string')
  )
}

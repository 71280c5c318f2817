/**
 * Source locations of system libraries' instructions (libc, ld.so, libstdc++), kept across
 * traces. A whole-program trace touches about 5,000 of their instructions at start-up, and
 * naming them (llvm-symbolizer and gdb) costs about a second per trace, while these files
 * change only with a package upgrade.
 *
 * An entry is only ever what `sourceLocations` answered for that address. The key is the
 * identity (path, size, mtime, inode) of the object and of its detached debug file, and the
 * naming tools found on PATH: an upgrade, installing libc6-dbg or llvm gives new entries. A
 * cache file that cannot be read or does not match is ignored and rewritten; writes go to a
 * side file renamed into place, so a crash never leaves half a file.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cacheDir, which } from '../paths'
import { sourceLocations } from './addr2line'
import type { SourceLocation } from './elf-parse'
import { detachedDebugFile } from './elf-reader'

/** Bumped when what sourceLocations answers changes form: older files are then ignored. */
const FORMAT = 1
const TOOLS = ['llvm-symbolizer', 'gdb', 'objdump', 'addr2line']

type Entry = [file: string | null, line: number | null, disasm: string | null]
interface CacheFile {
  format: number
  key: string
  entries: Record<string, Entry>
}

export interface SymbolCacheOptions {
  /** Where the files go (default: the user's cache folder). */
  dir?: string
  /** What names the addresses not yet kept (default: sourceLocations). */
  compute?: (path: string, linkAddresses: number[]) => Promise<SourceLocation[]>
}

/** sourceLocations(path, linkAddresses), from the kept entries where there are some. */
export async function cachedSourceLocations(path: string, linkAddresses: number[], options: SymbolCacheOptions = {}): Promise<SourceLocation[]> {
  const compute = options.compute ?? sourceLocations
  const key = await identity(path)
  if (key === null) return compute(path, linkAddresses)
  const file = join(options.dir ?? join(cacheDir(), 'symbols'), `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`)
  const entries = readEntries(file, key)
  const missing = [...new Set(linkAddresses.filter((a) => !(a.toString(16) in entries)))]
  if (missing.length > 0) {
    const found = await compute(path, missing)
    missing.forEach((a, i) => {
      const l = found[i]
      entries[a.toString(16)] = [l?.file ?? null, l?.line ?? null, l?.disasm ?? null]
    })
    writeEntries(file, { format: FORMAT, key, entries })
  }
  return linkAddresses.map((a) => {
    const [file, line, disasm] = entries[a.toString(16)]!
    return disasm === null ? { file, line } : { file, line, disasm }
  })
}

/** What the answers depend on, or null when the object cannot be identified (not cached). */
async function identity(path: string): Promise<string | null> {
  const stamp = (p: string) => {
    const st = statSync(p)
    return `${p}:${st.size}:${st.mtimeMs}:${st.ino}`
  }
  try {
    const debug = await detachedDebugFile(path)
    const tools = TOOLS.map((t) => {
      const at = which(t)
      return at ? stamp(at) : `${t}:none`
    })
    return [FORMAT, stamp(path), debug ? stamp(debug) : 'no-debug-file', ...tools].join('|')
  } catch {
    return null
  }
}

function readEntries(file: string, key: string): Record<string, Entry> {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile>
    if (kept.format !== FORMAT || kept.key !== key || typeof kept.entries !== 'object' || kept.entries === null) return {}
    const out: Record<string, Entry> = {}
    for (const [address, e] of Object.entries(kept.entries)) if (isEntry(e)) out[address] = e
    return out
  } catch {
    return {} // none yet, or unreadable: named again
  }
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

/** Best effort: a cache that cannot be written only means naming again next time. */
function writeEntries(file: string, content: CacheFile): void {
  const side = `${file}.${process.pid}.${Date.now()}.tmp`
  try {
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(side, JSON.stringify(content))
    renameSync(side, file)
  } catch {
    rmSync(side, { force: true })
  }
}

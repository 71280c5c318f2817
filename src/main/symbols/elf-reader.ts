/** Reads what Stride needs from one ELF file, once per path (cached for the process). */
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { StrideError } from '../../shared/errors'
import { buildIdDebugPath, parseNm, type ElfSymbol, type ElfSymbols } from './elf-parse'
import { readElfHeaders, type ElfHeaders } from './elf-headers'
import { keptFile, keptFolder, objectIdentity, readKept, writeKept } from './kept-files'
import { runTool } from './run-tool'
import { inSystemFolder } from './system-objects'

export interface ElfInfo extends ElfSymbols {
  path: string
  /** Addresses in the file are relative to where it is loaded (PIE or shared object). */
  relocatable: boolean
  /** Line tables in the file itself or in its detached debug file (libc6-dbg, -dbgsym packages). */
  hasDebugInfo: boolean
}

const cache = new Map<string, Promise<ElfInfo>>()
const debugFiles = new Map<string, Promise<string | null>>()
const headerReads = new Map<string, Promise<ElfHeaders | null>>()

/** Forgets what this process read (the kept files stay): objects are read or looked up again. */
export function forgetElfReads(): void {
  cache.clear()
  debugFiles.clear()
  headerReads.clear()
}

export function readElf(path: string): Promise<ElfInfo> {
  let hit = cache.get(path)
  if (!hit) {
    hit = load(path)
    cache.set(path, hit)
    hit.catch(() => cache.delete(path))
  }
  return hit
}

/** Checks a program path before launching it, with messages that say what to do. */
export function assertRunnableProgram(path: string): void {
  let st
  try {
    st = statSync(path)
  } catch {
    throw new StrideError(`Program "${path}" does not exist; give the path of an executable (build it first, e.g. cc -g -O1 prog.c -o prog).`, 'not-found')
  }
  if (!st.isFile()) throw new StrideError(`"${path}" is not a file; give the path of an executable.`, 'invalid-input')
  try {
    accessSync(path, constants.X_OK)
  } catch {
    throw new StrideError(`"${path}" is not executable; run chmod +x "${path}" or pick the built binary.`, 'permission-denied')
  }
}

/** Bumped when ElfInfo changes form: older kept files are then ignored. */
const KEPT_FORMAT = 1

/**
 * A system library's symbols are kept across traces (kept-files.ts: libc's with its debug
 * file's symbol table are five tool runs and 10,000 lines to parse per trace); others are read.
 */
async function load(path: string): Promise<ElfInfo> {
  if (!inSystemFolder(path)) return readObject(path)
  const identity = objectIdentity(path, await detachedDebugFile(path), ['nm'])
  if (identity === null) return readObject(path)
  const key = `elf ${KEPT_FORMAT}|${identity}`
  const file = keptFile(key, keptFolder('elf'))
  const kept = await readKept(file, key)
  if (isElfInfo(kept, path)) return kept
  const info = await readObject(path)
  await writeKept(file, key, info)
  return info
}

function isElfInfo(v: unknown, path: string): v is ElfInfo {
  if (typeof v !== 'object' || v === null) return false
  const e = v as Partial<ElfInfo>
  const symbols = (list: unknown) => Array.isArray(list) && list.every((x: Partial<ElfSymbol>) => typeof x?.name === 'string' && Number.isFinite(x.start) && Number.isFinite(x.size))
  return e.path === path && typeof e.relocatable === 'boolean' && typeof e.hasDebugInfo === 'boolean' && symbols(e.functions) && symbols(e.data)
}

/**
 * Whether nm takes `--plugin /dev/null`. Without --plugin, binutils' nm loads every plugin in
 * bfd-plugins to ask whether it claims the file, and Debian's llvm (which Stride asks for, for
 * llvm-symbolizer) installs LLVMgold there: loading it and libLLVM costs 0.07-0.12 s of CPU per
 * call, against 0.01 s for reading a program's symbols (two calls per object, the first while
 * Valgrind starts up). Programs and shared objects hold no LTO bytecode: no plugin is needed.
 */
let nmTakesPlugin = true

function nm(args: string[]): Promise<string> {
  if (!nmTakesPlugin) return runTool('nm', args)
  return runTool('nm', ['--plugin', '/dev/null', ...args]).catch(async (e: unknown) => {
    if ((e as { code?: string }).code === 'tool-missing') throw e
    // An nm that refuses the option does the plain call (then used from here on); a file nm cannot read fails both.
    const out = await runTool('nm', args)
    nmTakesPlugin = false
    return out
  })
}

async function readObject(path: string): Promise<ElfInfo> {
  const headers = await elfHeaders(path)
  if (!headers?.type) throw new StrideError(`"${path}" is not an ELF executable; Stride traces native Linux programs.`, 'invalid-input')
  const [own, dyn, debug] = await Promise.all([
    nm(['-S', '--defined-only', path]).catch(() => ''),
    nm(['-S', '-D', '--defined-only', path]).catch(() => ''),
    detachedDebugFile(path)
  ])
  // A stripped object: the symbol table of its detached debug file (libc6-dbg names
  // __memmove_avx_unaligned_erms as Valgrind does), else its dynamic symbols.
  const detached = !own.trim() && debug ? await nm(['-S', '--defined-only', debug]).catch(() => '') : ''
  const symbols = parseNm(own.trim() ? own : detached.trim() ? detached : dyn)
  const lineTables = headers.sections.includes('.debug_line') || headers.sections.includes('.zdebug_line')
  return { path, relocatable: headers.type === 'dyn', hasDebugInfo: lineTables || debug !== null, ...symbols }
}

/** The file's ELF headers, read once per path (null: not ELF, or unreadable). */
function elfHeaders(path: string): Promise<ElfHeaders | null> {
  let found = headerReads.get(path)
  if (!found) {
    found = readElfHeaders(path).catch(() => null)
    headerReads.set(path, found)
  }
  return found
}

/** The object's detached debug file (/usr/lib/debug/.build-id/...), when installed. */
export function detachedDebugFile(path: string): Promise<string | null> {
  let found = debugFiles.get(path)
  if (!found) {
    found = elfHeaders(path).then((headers) => {
      const debug = buildIdDebugPath(headers?.buildId ?? null)
      return debug !== null && existsSync(debug) ? debug : null
    })
    debugFiles.set(path, found)
  }
  return found
}

/**
 * Checks the functions a trace names against the program before any worker starts. Its own
 * module: `stride trace` loads it without the service's API schemas (start-up time).
 */
import { realpathSync } from 'node:fs'
import { basename } from 'node:path'
import { StrideError } from '../../shared/errors'
import { readElf } from '../symbols/elf-reader'
import { cloneOf, nameTableFor, resolveNames, unknownNames } from '../symbols/function-names'
import { inlineCallers, inlinedFunction } from '../symbols/inline-sites'
import { parseLibrarySpec } from '../symbols/library-spec'
import { linkedLibraries } from '../symbols/linked-libraries'

/**
 * The program's symbols for the functions the user named (symbols, or C++ names as written:
 * `ns::f`, `S::method()`), before any worker starts; one clear error for a name that matches
 * nothing or several.
 */
export async function checkFunctions(program: string, functions: string[]): Promise<string[]> {
  if (functions.length === 0) return []
  // LIBRARY:function names a function of a shared object the program loads.
  const ownNames = functions.filter((f) => !parseLibrarySpec(f))
  const own = await checkProgramFunctions(program, ownNames)
  const libraries = functions.filter((f) => parseLibrarySpec(f))
  return [...own, ...(await checkLibraryFunctions(program, libraries))]
}

/** Each LIBRARY:function as `FILE:symbol`, FILE the library's real file name (what Valgrind maps). */
async function checkLibraryFunctions(program: string, specs: string[]): Promise<string[]> {
  if (specs.length === 0) return []
  const listed = await linkedLibraries(program)
  const out: string[] = []
  for (const spec of specs) {
    const { library, name } = parseLibrarySpec(spec)!
    const path = listed.get(library) ?? [...listed].find(([k]) => k.startsWith(`${library}.`))?.[1]
    if (!path)
      throw new StrideError(`${program} does not load ${library} (ldd lists ${[...listed.keys()].join(', ') || 'no libraries'}); name a library it loads, e.g. "${[...listed.keys()][0] ?? 'libm.so.6'}:${name}".`, 'not-found')
    const real = realpathSync(path)
    const [symbol] = await checkProgramFunctions(real, [name])
    out.push(`${basename(real)}:${symbol}`)
  }
  return out
}

async function checkProgramFunctions(program: string, functions: string[]): Promise<string[]> {
  if (functions.length === 0) return []
  const elf = await readElf(program)
  const symbols = elf.functions.map((f) => f.name)
  const table = await nameTableFor(symbols, functions)
  const unknown = unknownNames(table, functions)
  if (unknown.length > 0) {
    const inlined = await inlinedEverywhere(program, elf.functions, unknown)
    if (inlined.length > 0) {
      const rest = unknown.filter((n) => !inlined.some((i) => i.name === n))
      let tail = ''
      if (rest.length > 0)
        try {
          resolveNames(table, rest, program)
        } catch (e) {
          tail = ` ${(e as Error).message}.`
        }
      throw new StrideError(inlined.map((i) => i.message).join(' ') + tail, 'not-found')
    }
  }
  try {
    return resolveNames(table, functions, program)
  } catch (e) {
    throw new StrideError(`${(e as Error).message}.`, 'not-found')
  }
}

/**
 * The names with no symbol because the compiler inlined them (static functions at -O2:
 * PolyBench's kernel_2mm into main), each with one sentence saying where and what to trace.
 */
async function inlinedEverywhere(program: string, functions: Array<{ name: string; start: number; size: number }>, names: string[]): Promise<Array<{ name: string; message: string }>> {
  const out: Array<{ name: string; message: string }> = []
  for (const name of names) {
    // C++ names as written are not DWARF names (ns::f is "f" in namespace ns): plain ones only.
    if (!/^[A-Za-z_]\w*$/.test(name)) continue
    const found = await inlinedFunction(program, name)
    if (!found || !found.described || found.ownCode) continue
    const callers = inlineCallers(found.sites, functions)
    const named = callers.filter((c) => c.caller !== null).map((c) => ({ ...c, caller: cloneOf(c.caller!) ?? c.caller! }))
    const where = callers.map((c) => {
      const calls = c.calls.length > 0 ? ` (${c.calls.join(', ')})` : ''
      return c.caller !== null ? `${cloneOf(c.caller) ?? c.caller}${calls}` : `its caller${calls}`
    })
    const suggestion = named.length > 0 ? `--functions ${[...new Set(named.map((c) => c.caller))].join(',')}` : '--functions CALLER'
    out.push({
      name,
      message:
        found.sites.length > 0
          ? `Function "${name}" has no code of its own in ${program}: the compiler inlined it into ${where.join(' and ')} everywhere; trace the caller instead (${suggestion}), or rebuild with -fno-inline (or __attribute__((noinline)) on ${name}) to trace it alone.`
          : `Function "${name}" has no code of its own in ${program}: the compiler inlined it everywhere or removed it as unused; trace its caller instead (--functions CALLER), or rebuild with -fno-inline to trace it alone.`
    })
  }
  return out
}

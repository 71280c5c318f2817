/**
 * Checks the functions a trace names against the program before any worker starts. Its own
 * module: `stride trace` loads it without the service's API schemas (start-up time).
 */
import { realpathSync } from 'node:fs'
import { basename } from 'node:path'
import { StrideError } from '../../shared/errors'
import { readElf } from '../symbols/elf-reader'
import { buildNameTable, demangle, resolveNames } from '../symbols/function-names'
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
  // Plain names need no demangler (but still take their GCC clones: f.part.0, f.cold);
  // C++ names as written do.
  const plain = functions.every((f) => symbols.includes(f))
  const table = buildNameTable(symbols, plain ? symbols : await demangle(symbols).catch(() => symbols))
  try {
    return resolveNames(table, functions, program)
  } catch (e) {
    throw new StrideError(`${(e as Error).message}.`, 'not-found')
  }
}

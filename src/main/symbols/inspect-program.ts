/** The function picker's data: a program's functions, with where they are defined. */
import type { ProgramSymbols } from '../../shared/domain'
import { sourceLocations } from './addr2line'
import { assertRunnableProgram, readElf } from './elf-reader'
import { demangle } from './function-names'
import { parseReadelfSymbolTypes } from './elf-parse'
import { runTool } from './run-tool'

export const NO_DEBUG_INFO_HINT =
  'This binary has no debug line information, so source lines are unavailable (accesses are still traced and shown by address). Rebuild it with -g, e.g. cc -g -O1 prog.c -o prog.'

/** Functions the C runtime adds to every program; listed last in the picker. */
const RUNTIME_FUNCTIONS = new Set(['_start', '_init', '_fini', 'frame_dummy', 'register_tm_clones', 'deregister_tm_clones', '__do_global_dtors_aux', '__libc_csu_init', '__libc_csu_fini'])

export async function inspectProgram(program: string): Promise<ProgramSymbols> {
  assertRunnableProgram(program)
  const elf = await readElf(program)
  // Functions only: nm's letters also take weak data symbols (`data_start`) for functions; a
  // symbol the program's symbol tables type as data (OBJECT, NOTYPE) and never as FUNC is
  // left out. One they do not list (read from a detached debug file) stays; without readelf,
  // nm's list as it is.
  const typed = await runTool('readelf', ['-Ws', program]).then(parseReadelfSymbolTypes, () => null)
  const isData = (name: string) => typed !== null && typed.others.has(name) && !typed.functions.has(name)
  const fns = elf.functions.filter((f) => !f.name.includes('@') && !isData(f.name))
  const locations = elf.hasDebugInfo ? await sourceLocations(program, fns.map((f) => f.start)) : []
  // C++ symbols are shown demangled; the linked name stays what is traced. No c++filt: mangled.
  const demangled = await demangle(fns.map((f) => f.name)).catch(() => fns.map((f) => f.name))
  const functions = fns
    .map((f, i) => ({
      name: f.name,
      ...(demangled[i] && demangled[i] !== f.name ? { demangled: demangled[i] } : {}),
      address: '0x' + f.start.toString(16),
      size: f.size,
      file: locations[i]?.file ?? null,
      line: locations[i]?.line ?? null
    }))
    .sort((a, b) => Number(RUNTIME_FUNCTIONS.has(a.name)) - Number(RUNTIME_FUNCTIONS.has(b.name)) || Number(!a.file) - Number(!b.file) || a.name.localeCompare(b.name))
  return {
    program,
    hasDebugInfo: elf.hasDebugInfo,
    debugInfoHint: elf.hasDebugInfo ? null : NO_DEBUG_INFO_HINT,
    functions
  }
}

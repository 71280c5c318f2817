/**
 * The program's variables as gdb reads them (gdb-variables.ts), kept across traces of the same
 * build. gdb's start alone takes ~0.16 s on these VMs, and a trace's records wait for the
 * layout (the correlator names every access with it): meanwhile the record pipe fills and
 * Valgrind stops. A re-trace of an unchanged binary (other functions, other arguments, the
 * next what-if's trace) reads the kept answer instead.
 *
 * One file per program path, so rebuilding a program replaces its file instead of adding one;
 * its key (kept-files.ts) is the binary's identity (path, size, mtime, inode), its detached
 * debug file's and gdb's, the script gdb runs and the request. Anything else, or a file that
 * does not have ProgramVariables' form, and gdb reads the program again.
 */
import { createHash } from 'node:crypto'
import { detachedDebugFile } from './elf-reader'
import { GDB_VARIABLES_SCRIPT, readProgramVariables, type FrameLocalInfo, type ProgramVariables, type TypeShape } from './gdb-variables'
import { keptFile, keptFolder, objectIdentity, readKept, writeKept } from './kept-files'

/** Bumped when ProgramVariables changes form: older kept files are then ignored. */
const FORMAT = 1

export interface KeptLayoutOptions {
  /** Where the files go (default: the user's cache folder). */
  dir?: string
  /** What reads the program when nothing is kept (default: readProgramVariables). */
  read?: typeof readProgramVariables
}

/** readProgramVariables(program, globals, functions), from the kept file when it answers for this build. */
export async function keptProgramVariables(program: string, globals: string[], functions: Array<[string, number]>, options: KeptLayoutOptions = {}): Promise<ProgramVariables> {
  const read = options.read ?? readProgramVariables
  const identity = objectIdentity(program, await detachedDebugFile(program), ['gdb'])
  if (identity === null) return read(program, globals, functions)
  const asked = createHash('sha256').update(GDB_VARIABLES_SCRIPT).update(JSON.stringify([globals, functions])).digest('hex')
  const key = `layout ${FORMAT}|${identity}|${asked}`
  const file = keptFile(`layout|${program}`, options.dir ?? keptFolder('layouts'))
  const kept = await readKept(file, key)
  if (isProgramVariables(kept)) return kept
  const variables = await read(program, globals, functions)
  await writeKept(file, key, variables)
  return variables
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function isShape(v: unknown): v is TypeShape {
  if (!isRecord(v)) return false
  const dims = v.dims
  return typeof v.type === 'string' && Number.isFinite(v.size) && Number.isFinite(v.elementSize) && (dims === null || (Array.isArray(dims) && dims.every((d) => Number.isInteger(d))))
}

const isLocal = (v: unknown): v is FrameLocalInfo => isShape(v) && typeof (v as Partial<FrameLocalInfo>).name === 'string' && Number.isFinite((v as Partial<FrameLocalInfo>).offset)

/** Whether a kept file's content has the form gdb's answer has (a damaged one is read again). */
export function isProgramVariables(v: unknown): v is ProgramVariables {
  if (!isRecord(v) || !isRecord(v.globals) || !isRecord(v.frames)) return false
  return Object.values(v.globals).every(isShape) && Object.values(v.frames).every((locals) => Array.isArray(locals) && locals.every(isLocal))
}

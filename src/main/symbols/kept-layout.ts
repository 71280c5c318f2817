/**
 * The program's variables as gdb reads them (gdb-variables.ts), kept across traces of the same
 * build. gdb's start alone takes ~0.16 s on these VMs, and a trace's records wait for the
 * layout (the correlator names every access with it): meanwhile the record pipe fills and
 * Valgrind stops. A re-trace of an unchanged binary (other functions, other arguments, the
 * next what-if's trace) reads the kept answer instead.
 *
 * One file per program path, so rebuilding a program replaces its file instead of adding one;
 * its key (kept-files.ts) is the binary's identity (path, size, mtime, inode), its detached
 * debug file's and gdb's, the script gdb runs and the request. When any of them changes, or
 * the file does not have ProgramVariables' form, gdb reads the program again.
 */
import { createHash } from 'node:crypto'
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { detachedDebugFile } from './elf-reader'
import { GDB_POINTEES_SCRIPT, GDB_VARIABLES_SCRIPT, isPointeeShape, readPointeeShapes, readProgramVariables, type FrameLocalInfo, type PointeeShape, type ProgramVariables, type TypeShape } from './gdb-variables'
import { keptFile, keptFolder, objectIdentity, readKept, writeKept } from './kept-files'

/** Bumped when ProgramVariables changes form: older kept files are then ignored. */
const FORMAT = 1

/** Programs kept at most (a few KB each): traces of programs built in fresh folders each time (test suites) add one each. */
const KEEP_PROGRAMS = 256

export interface KeptLayoutOptions {
  /** Where the files go (default: the user's cache folder). */
  dir?: string
  /** What reads the program when nothing is kept (default: readProgramVariables). */
  read?: typeof readProgramVariables
  /** Programs kept at most (default KEEP_PROGRAMS); the least recently written go first. */
  keep?: number
}

/** readProgramVariables(program, globals, functions), from the kept file when it answers for this build. */
export async function keptProgramVariables(program: string, globals: string[], functions: Array<[string, number]>, options: KeptLayoutOptions = {}): Promise<ProgramVariables> {
  const read = options.read ?? readProgramVariables
  const identity = objectIdentity(program, await detachedDebugFile(program), ['gdb'])
  if (identity === null) return read(program, globals, functions)
  const asked = createHash('sha256').update(GDB_VARIABLES_SCRIPT).update(JSON.stringify([globals, functions])).digest('hex')
  const key = `layout ${FORMAT}|${identity}|${asked}`
  const folder = options.dir ?? keptFolder('layouts')
  const file = keptFile(`layout|${program}`, folder)
  const kept = await readKept(file, key)
  if (isProgramVariables(kept)) return kept
  const variables = await read(program, globals, functions)
  await writeKept(file, key, variables)
  await pruneOldest(folder, options.keep ?? KEEP_PROGRAMS)
  return variables
}

/**
 * readPointeeShapes(program, pointers): the types of the pointers a trace's heap blocks were
 * assigned to, kept the same way (one file per object, keyed by its build and the request), so
 * a re-trace of an unchanged build does not start gdb after its records for them.
 */
export async function keptPointeeShapes(
  program: string,
  pointers: Array<{ name: string; pc: number }>,
  options: Omit<KeptLayoutOptions, 'read'> & { read?: typeof readPointeeShapes } = {}
): Promise<Array<PointeeShape | null>> {
  const read = options.read ?? readPointeeShapes
  const identity = objectIdentity(program, await detachedDebugFile(program), ['gdb'])
  if (identity === null) return read(program, pointers)
  const asked = createHash('sha256').update(GDB_POINTEES_SCRIPT).update(JSON.stringify(pointers)).digest('hex')
  const key = `pointees ${FORMAT}|${identity}|${asked}`
  const folder = options.dir ?? keptFolder('layouts')
  const file = keptFile(`pointees|${program}`, folder)
  const kept = await readKept(file, key)
  if (Array.isArray(kept) && kept.length === pointers.length && kept.every((k) => k === null || isPointeeShape(k))) return kept as Array<PointeeShape | null>
  const shapes = await read(program, pointers)
  await writeKept(file, key, shapes)
  await pruneOldest(folder, options.keep ?? KEEP_PROGRAMS)
  return shapes
}

/** Best effort: removes the least recently written files beyond `keep` (a file that goes meanwhile is simply gone). */
async function pruneOldest(folder: string, keep: number): Promise<void> {
  try {
    const names = (await readdir(folder)).filter((n) => n.endsWith('.json'))
    if (names.length <= keep) return
    const files = await Promise.all(names.map(async (n) => ({ path: join(folder, n), at: (await stat(join(folder, n)).catch(() => null))?.mtimeMs ?? 0 })))
    files.sort((a, b) => a.at - b.at)
    await Promise.all(files.slice(0, files.length - keep).map((f) => rm(f.path, { force: true })))
  } catch {
    // An unreadable folder only means nothing is pruned.
  }
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

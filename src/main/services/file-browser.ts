/**
 * The file browser behind web mode's pickers (and the desktop app's, when it has no dialog):
 * any folder the user can read, as in a terminal (the server listens on 127.0.0.1 only, behind
 * the same token as every call), with the home folder and the bundled examples as places; and
 * a typed path, checked here: it must exist and be readable, and a program must be a regular
 * executable file. Refusals are one line each.
 */
import { accessSync, constants, readdirSync, realpathSync, statSync, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, parse } from 'node:path'
import { StrideError } from '../../shared/errors'
import type { CheckedPath, DirectoryEntry, DirectoryListing, FilePurpose } from '../../shared/domain'
import { examplesDir } from '../paths'

/** Most entries one listing returns (a folder of 100,000 files is not a picker's job). */
export const MAX_ENTRIES = 2000

/** A place the browser offers as a shortcut (it may browse elsewhere too). */
export interface BrowseRoot {
  label: string
  path: string
}

export function defaultRoots(): BrowseRoot[] {
  const roots: BrowseRoot[] = []
  for (const [label, path] of [
    ['Home', homedir()],
    ['Examples', examplesDir()],
    ['Computer', '/']
  ] as const) {
    try {
      const real = realpathSync(path)
      if (!roots.some((r) => r.path === real)) roots.push({ label, path: real })
    } catch {
      // a place that does not exist is simply not offered
    }
  }
  return roots
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code ?? 'error'

/** `path` once every link is resolved, or a one-line refusal: it must be absolute and exist. */
function resolveTyped(path: string): { real: string; st: Stats } {
  if (!isAbsolute(path)) throw new StrideError(`${path} is not an absolute path; type one that starts with /.`, 'invalid-input')
  let real: string
  try {
    real = realpathSync(path)
  } catch (e) {
    const code = errno(e)
    if (code === 'EACCES') throw new StrideError(`${path} cannot be reached: you may not read a folder on the way (EACCES).`, 'permission-denied')
    throw new StrideError(`${path} does not exist${code === 'ENOENT' ? '' : ` (${code})`}; check the path.`, 'not-found')
  }
  return { real, st: statSync(real) }
}

function readable(real: string, mode: number): boolean {
  try {
    accessSync(real, mode)
    return true
  } catch {
    return false
  }
}

/** Lists the folder `path` (default: the first place) if the user can read it. */
export function listDirectory(path: string | null, purpose: FilePurpose, roots: BrowseRoot[] = defaultRoots()): DirectoryListing {
  const start = path ?? roots[0]?.path ?? '/'
  const { real, st } = resolveTyped(start)
  if (!st.isDirectory()) throw new StrideError(`${start} is not a folder.`, 'invalid-input')
  if (!readable(real, constants.R_OK | constants.X_OK)) throw new StrideError(`${start} cannot be read (you may not list it); pick another folder.`, 'permission-denied')
  let names: string[]
  try {
    names = readdirSync(real)
  } catch (e) {
    throw new StrideError(`${start} cannot be read (${errno(e)}); pick another folder.`, 'permission-denied')
  }
  const entries: DirectoryEntry[] = []
  for (const name of names.sort((a, b) => a.localeCompare(b))) {
    if (name.startsWith('.')) continue // hidden files, as file dialogs do by default
    const full = join(real, name)
    let entry
    try {
      entry = statSync(full)
    } catch {
      continue // a dangling link, or one the user may not follow
    }
    const dir = entry.isDirectory()
    const executable = !dir && entry.isFile() && (entry.mode & 0o111) !== 0
    const session = !dir && entry.isFile() && name.endsWith('.stride')
    // Only what the purpose can use, and folders to go into.
    if (!dir && (purpose === 'program' ? !executable : !session)) continue
    entries.push({ name, path: full, kind: dir ? 'dir' : 'file', executable, session, size: entry.size })
  }
  entries.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'dir' ? -1 : 1))
  return {
    path: real,
    parent: real === parse(real).root ? null : dirname(real),
    roots,
    entries: entries.slice(0, MAX_ENTRIES),
    truncated: entries.length > MAX_ENTRIES
  }
}

/**
 * A path the user typed: a folder to go into (readable), or a file the purpose can use — a
 * program must be a regular file the user may read and execute, a session a readable regular file.
 */
export function checkPath(path: string, purpose: FilePurpose): CheckedPath {
  const { real, st } = resolveTyped(path)
  if (st.isDirectory()) {
    if (!readable(real, constants.R_OK | constants.X_OK)) throw new StrideError(`${path} is a folder you may not read; pick another.`, 'permission-denied')
    return { path: real, kind: 'dir' }
  }
  if (!st.isFile()) throw new StrideError(`${path} is not a regular file (a device, a socket or a pipe); pick a ${purpose === 'program' ? 'program' : 'session file'}.`, 'invalid-input')
  if (!readable(real, constants.R_OK)) throw new StrideError(`${path} cannot be read by you (permission denied).`, 'permission-denied')
  if (purpose === 'program') {
    // X_OK is true for root on any file with one x bit; a file with none is not a program.
    if ((st.mode & 0o111) === 0 || !readable(real, constants.X_OK)) throw new StrideError(`${path} is not executable (chmod +x it, or pick a program).`, 'invalid-input')
  }
  return { path: real, kind: 'file' }
}

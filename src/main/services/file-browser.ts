/**
 * The file browser behind web mode's pickers (and the desktop app's, when it has no dialog):
 * folders inside the user's home and the bundled examples only, resolved through symlinks
 * first, so neither `..` nor a link leads anywhere else. Behind the same token as every call.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, sep } from 'node:path'
import { StrideError } from '../../shared/errors'
import type { DirectoryEntry, DirectoryListing, FilePurpose } from '../../shared/domain'
import { examplesDir } from '../paths'

/** Most entries one listing returns (a folder of 100,000 files is not a picker's job). */
export const MAX_ENTRIES = 2000

export interface BrowseRoot {
  label: string
  path: string
}

export function defaultRoots(): BrowseRoot[] {
  const roots: BrowseRoot[] = []
  for (const [label, path] of [
    ['Home', homedir()],
    ['Examples', examplesDir()]
  ] as const) {
    try {
      roots.push({ label, path: realpathSync(path) })
    } catch {
      // a root that does not exist is simply not offered
    }
  }
  return roots
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

/** Lists `path` (default: the first root) if it lies inside a root once every link is resolved. */
export function listDirectory(path: string | null, purpose: FilePurpose, roots: BrowseRoot[] = defaultRoots()): DirectoryListing {
  if (roots.length === 0) throw new StrideError('No folder can be browsed here (no home folder); type the path instead.', 'not-found')
  let real: string
  try {
    real = realpathSync(path ?? roots[0]!.path)
  } catch {
    throw new StrideError(`${path} does not exist; pick a folder from the list.`, 'not-found')
  }
  const root = roots.find((r) => inside(real, r.path))
  if (!root) throw new StrideError(`${path} is outside the folders Stride may browse (${roots.map((r) => r.path).join(', ')}); type the path instead.`, 'permission-denied')
  if (!statSync(real).isDirectory()) throw new StrideError(`${path} is not a folder.`, 'invalid-input')
  let names: string[]
  try {
    names = readdirSync(real)
  } catch (e) {
    throw new StrideError(`${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); pick another folder.`, 'permission-denied')
  }
  const entries: DirectoryEntry[] = []
  for (const name of names.sort((a, b) => a.localeCompare(b))) {
    if (name.startsWith('.')) continue // hidden files, as file dialogs do by default
    const full = join(real, name)
    let st
    try {
      st = statSync(full)
    } catch {
      continue // a dangling link
    }
    const dir = st.isDirectory()
    // A link out of the roots is not offered (going into it would be refused anyway).
    if (dir) {
      try {
        if (!roots.some((r) => inside(realpathSync(full), r.path))) continue
      } catch {
        continue
      }
    }
    const executable = !dir && (st.mode & 0o111) !== 0
    const session = !dir && name.endsWith('.stride')
    // Only what the purpose can use, and folders to go into.
    if (!dir && (purpose === 'program' ? !executable : !session)) continue
    entries.push({ name, path: full, kind: dir ? 'dir' : 'file', executable, session, size: st.size })
  }
  entries.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'dir' ? -1 : 1))
  return {
    path: real,
    parent: real === root.path ? null : dirname(real),
    roots,
    entries: entries.slice(0, MAX_ENTRIES),
    truncated: entries.length > MAX_ENTRIES
  }
}

/**
 * What Stride reads out of system libraries (their symbols, their instructions' source lines),
 * kept in the user's cache folder across traces: these files change only with a package
 * upgrade, and reading them again costs every whole-program trace about a second of tool runs.
 * (What gdb reads of a program's variables is kept the same way, per build: kept-layout.ts.)
 *
 * A kept file holds its key: the identity (path, size, mtime, inode) of the object, of its
 * detached debug file and of the tools that read them. Anything that changes the answer
 * changes the key, and a file whose key or form does not match is ignored (and rewritten).
 * Writes go to a side file renamed into place, so a crash never leaves half a file. Reads and
 * writes are asynchronous: `readElf` also runs on the app's main process (function checks).
 */
import { createHash } from 'node:crypto'
import { statSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { cacheDir, which } from '../paths'

/** The key of what `tools` read from `path` (and its debug file), or null if it cannot be identified. */
export function objectIdentity(path: string, debugFile: string | null, tools: readonly string[]): string | null {
  const stamp = (p: string) => {
    const st = statSync(p)
    return `${p}:${st.size}:${st.mtimeMs}:${st.ino}`
  }
  try {
    const found = tools.map((t) => {
      const at = which(t)
      return at ? stamp(at) : `${t}:none`
    })
    return [stamp(path), debugFile ? stamp(debugFile) : 'no-debug-file', ...found].join('|')
  } catch {
    return null
  }
}

/** The file that keeps `key`'s content in `folder`, a folder of the cache folder by default. */
export function keptFile(key: string, folder: string): string {
  return join(folder, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`)
}

/** A folder of the user's cache folder (src/main/paths.ts cacheDir()). */
export function keptFolder(name: string): string {
  return join(cacheDir(), name)
}

/** The content kept under `key`, when the file exists, parses, and holds that key. */
export async function readKept(file: string, key: string): Promise<unknown> {
  try {
    const kept = JSON.parse(await readFile(file, 'utf8')) as { key?: unknown; content?: unknown }
    return kept.key === key ? kept.content : undefined
  } catch {
    return undefined // none yet, or unreadable: read again
  }
}

/** Best effort: a file that cannot be written only means reading the object again next time. */
export async function writeKept(file: string, key: string, content: unknown): Promise<void> {
  const side = `${file}.${process.pid}.${Date.now()}.tmp`
  try {
    await mkdir(join(file, '..'), { recursive: true })
    await writeFile(side, JSON.stringify({ key, content }))
    await rename(side, file)
  } catch {
    await rm(side, { force: true })
  }
}

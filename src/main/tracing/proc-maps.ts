/**
 * Which object file each runtime address belongs to, from /proc/PID/maps. Under Valgrind
 * the PID is the tool process, which maps the client's objects at their runtime addresses.
 */
import { readFileSync } from 'node:fs'

export interface Mapping {
  start: number
  end: number
  offset: number
  path: string
}

export interface LoadedModule {
  path: string
  /** Runtime address of file offset 0 (the load base for PIE/shared objects). */
  base: number
  start: number
  end: number
}

/** Pure: file-backed mappings of a maps text. Skips anonymous and pseudo ([stack]) ones. */
export function parseMaps(text: string): Mapping[] {
  const out: Mapping[] = []
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+)\s+\S+\s+([0-9a-f]+)\s+\S+\s+\d+\s+(\/.*)$/.exec(line)
    if (!m) continue
    const start = parseInt(m[1]!, 16)
    if (start >= 2 ** 53) continue // kernel-side pseudo mappings; never user data
    out.push({ start, end: parseInt(m[2]!, 16), offset: parseInt(m[3]!, 16), path: m[4]!.replace(/ \(deleted\)$/, '') })
  }
  return out
}

/** Collects the modules of a running process as they appear (dlopen included). */
export class ModuleMap {
  private readonly modules = new Map<string, LoadedModule>()
  /** Sorted by start for lookups; rebuilt when modules change. */
  private sorted: LoadedModule[] = []
  /** Modules already handed out by takeNew. */
  private readonly taken = new Set<string>()

  /** Merges one snapshot; returns true when something new appeared. */
  add(mappings: Mapping[]): boolean {
    let changed = false
    for (const m of mappings) {
      // Valgrind's own tool binary and preloads are not the client's code.
      // (Stride's own tool and its preload live in the cache's valgrind-tool/HASH/; its record
      // ring is the memfd named in the native core's ring.c.)
      if (/\/valgrind\/[^/]*-(amd64|arm64|x86|ppc64le|s390x)-linux$|\/valgrind-tool\/[0-9a-f]+\//.test(m.path) || m.path.startsWith('/tmp/vgdb-pipe') || m.path === '/memfd:stride-records') continue
      const base = m.start - m.offset
      const known = this.modules.get(m.path)
      if (!known) {
        this.modules.set(m.path, { path: m.path, base, start: m.start, end: m.end })
        changed = true
      } else if (m.start < known.start || m.end > known.end) {
        known.start = Math.min(known.start, m.start)
        known.end = Math.max(known.end, m.end)
        known.base = Math.min(known.base, base)
        changed = true
      }
    }
    if (changed) this.sorted = [...this.modules.values()].sort((a, b) => a.start - b.start)
    return changed
  }

  find(address: number): LoadedModule | null {
    for (const m of this.sorted) if (address >= m.start && address < m.end) return m
    return null
  }

  byPath(path: string): LoadedModule | null {
    return this.modules.get(path) ?? null
  }

  all(): LoadedModule[] {
    return [...this.sorted]
  }

  /** Modules no earlier call returned (each shared object once), the program itself left out. */
  takeNew(program: string): LoadedModule[] {
    const fresh = this.sorted.filter((m) => m.path !== program && !this.taken.has(m.path))
    for (const m of fresh) this.taken.add(m.path)
    return fresh
  }

  /** Reads /proc/PID/maps; returns false when the process is gone. */
  refresh(pid: number): boolean {
    try {
      this.add(parseMaps(readFileSync(`/proc/${pid}/maps`, 'utf8')))
      return true
    } catch {
      return false
    }
  }
}

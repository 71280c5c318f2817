/**
 * What a user may call a function: its symbol (`_ZN2ns1fEi`, `sumfunc`) or, for C++, its
 * demangled name with or without the parameters (`ns::f(int)`, `ns::f`, `S::method`,
 * `max<int>` quoted in a shell). Demangled by binutils' c++filt, once per program.
 */
import { runTool } from './run-tool'

export interface NameTable {
  /** name as the user may write it -> the symbols it may mean */
  byName: Map<string, string[]>
}

/** Strips the parameter list: `ns::f(int, char const*)` -> `ns::f` (template arguments kept). */
export function withoutParameters(demangled: string): string {
  let depth = 0
  for (let i = 0; i < demangled.length; i++) {
    const c = demangled[i]
    if (c === '<') depth++
    else if (c === '>') depth--
    else if (c === '(' && depth === 0 && i > 0) return demangled.slice(0, i)
  }
  return demangled
}

export function buildNameTable(symbols: string[], demangled: string[]): NameTable {
  const byName = new Map<string, string[]>()
  const add = (key: string, symbol: string) => {
    const list = byName.get(key) ?? []
    if (!list.includes(symbol)) list.push(symbol)
    byName.set(key, list)
  }
  symbols.forEach((s, i) => {
    add(s, s)
    const d = demangled[i]
    if (d && d !== s) {
      add(d, s)
      add(withoutParameters(d), s)
    }
  })
  return { byName }
}

export async function demangle(symbols: string[]): Promise<string[]> {
  const mangled = symbols.filter((s) => s.startsWith('_Z'))
  if (mangled.length === 0) return symbols
  const out = (await runTool('c++filt', [], mangled.join('\n') + '\n')).split('\n')
  const map = new Map(mangled.map((m, i) => [m, out[i] ?? m]))
  return symbols.map((s) => map.get(s) ?? s)
}

const CLONE = /\.(cold|part|isra|constprop|lto_priv|clone)(\.\d+)*$/

function isClone(symbol: string): boolean {
  return CLONE.test(symbol)
}

/**
 * The symbols the user's names mean, in order; one error line for names that match nothing
 * or several functions (overloads: name the parameters too).
 */
export function resolveNames(table: NameTable, names: string[], program: string): string[] {
  const missing: string[] = []
  const out: string[] = []
  for (const name of names) {
    const hits = table.byName.get(name.replace(/\s+/g, ' ').trim()) ?? []
    // GCC's clones of one function (f.cold, f.part.0, f.isra.0, f.constprop.0) are that
    // function: its cold path or specialised copies; "f" traces them all.
    const primary = hits.filter((h) => !isClone(h))
    if (hits.length === 1) out.push(hits[0]!)
    else if (primary.length === 1) out.push(primary[0]!, ...hits.filter(isClone))
    else if (hits.length > 1) {
      throw new Error(`"${name}" names ${hits.length} functions in ${program} (overloads); add the parameters, e.g. "${name}(int)"`)
    } else missing.push(name)
  }
  if (missing.length > 0)
    throw new Error(
      `Function${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} not found in ${program}; pick from its function list (static functions may be inlined at -O1 and above; with the Valgrind backend only the program's own functions are traced, a shared library's need --backend frida)`
    )
  return out
}

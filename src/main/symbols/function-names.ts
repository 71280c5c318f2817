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
    // A C clone (kernel.constprop.0, f.isra.0.cold) is also found by its function's name;
    // C++ clones are by their demangled name ("f(int) [clone .cold]" without parameters).
    const base = cloneOf(s)
    if (base !== null) add(base, s)
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

/**
 * GCC's clone suffixes, possibly several (`.isra.0.cold`, `.constprop.0.isra.0`): the
 * function's cold path or copies specialised for constant or scalarised arguments.
 */
/**
 * The name table for what the user typed: plain symbols need no demangler (they still take
 * their GCC clones, f.part.0, f.cold); C++ names as written do.
 */
export async function nameTableFor(symbols: string[], names: string[]): Promise<NameTable> {
  const plain = names.every((n) => symbols.includes(n))
  return buildNameTable(symbols, plain ? symbols : await demangle(symbols).catch(() => symbols))
}

const CLONE = /(?:\.(?:cold|part|isra|constprop|lto_priv|clone)(?:\.\d+)*)+$/

/** The function a GCC clone was made from (`kernel.constprop.0` -> `kernel`), or null. */
export function cloneOf(symbol: string): string | null {
  const m = CLONE.exec(symbol)
  return m && m.index > 0 ? symbol.slice(0, m.index) : null
}

function isClone(symbol: string): boolean {
  return cloneOf(symbol) !== null
}

/** The names that match no symbol (the function may have been inlined everywhere). */
export function unknownNames(table: NameTable, names: string[]): string[] {
  return names.filter((name) => !table.byName.has(name.replace(/\s+/g, ' ').trim()))
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
    // function: its cold path or specialised copies; "f" traces them all, with or without f
    // itself (at -O2 only kernel.constprop.0 may be left).
    const functions = new Set(hits.map((h) => cloneOf(h) ?? h))
    if (functions.size === 1) out.push(...hits.filter((h) => !isClone(h)), ...hits.filter(isClone))
    else if (functions.size > 1) {
      throw new Error(`"${name}" names ${functions.size} functions in ${program} (overloads); add the parameters, e.g. "${name}(int)"`)
    } else missing.push(name)
  }
  if (missing.length > 0)
    throw new Error(
      `Function${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} not found in ${program}; pick from its function list (static functions may be inlined at -O1 and above; with the Valgrind backend only the program's own functions are traced, a shared library's need --backend frida)`
    )
  return out
}

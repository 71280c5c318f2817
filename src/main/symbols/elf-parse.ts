/** Pure parsers for binutils output. */

export interface ElfSymbol {
  name: string
  /** Link-time address. */
  start: number
  size: number
}

export interface ElfSymbols {
  functions: ElfSymbol[]
  data: ElfSymbol[]
}

/**
 * `nm -S --defined-only` lines: "ADDR SIZE TYPE NAME" (SIZE absent for some symbols).
 * Text symbols (T/t/W/i) are functions; B/b/D/d/R/r/V with a size are data objects.
 */
export function parseNm(text: string): ElfSymbols {
  const functions: ElfSymbol[] = []
  const data: ElfSymbol[] = []
  for (const line of text.split('\n')) {
    const m = /^([0-9a-fA-F]+)\s+(?:([0-9a-fA-F]+)\s+)?([A-Za-z])\s+(.+)$/.exec(line.trim())
    if (!m) continue
    const start = parseInt(m[1]!, 16)
    const size = m[2] ? parseInt(m[2], 16) : 0
    const type = m[3]!
    const name = m[4]!
    if ('TtWwi'.includes(type)) functions.push({ name, start, size })
    else if ('BbDdRrVvGgSs'.includes(type) && size > 0) data.push({ name, start, size })
  }
  const byStart = (a: ElfSymbol, b: ElfSymbol) => a.start - b.start || b.size - a.size
  functions.sort(byStart)
  data.sort(byStart)
  // Give size-less function symbols the gap to the next one, so ranges still cover them.
  for (let i = 0; i < functions.length; i++) {
    const f = functions[i]!
    if (f.size === 0) {
      const next = functions.slice(i + 1).find((g) => g.start > f.start)
      f.size = next ? next.start - f.start : 1
    }
  }
  return { functions: dedupe(functions), data: dedupe(data) }
}

/**
 * `readelf -Ws` lines: "NUM: VALUE SIZE TYPE BIND VIS NDX NAME". The defined symbols by ELF
 * type: `functions` those of type FUNC (or GNU's IFUNC), `others` the rest (OBJECT, NOTYPE,
 * TLS, ...). nm's letters cannot tell them apart: it calls `data_start`, a weak NOTYPE symbol
 * in .data, W like a weak function. Versions (`memcpy@GLIBC_2.14`, `@@`) are cut off.
 */
export function parseReadelfSymbolTypes(text: string): { functions: Set<string>; others: Set<string> } {
  const functions = new Set<string>()
  const others = new Set<string>()
  for (const line of text.split('\n')) {
    const m = /^\s*\d+:\s+[0-9a-fA-F]+\s+\S+\s+(\w+)\s+\w+\s+\w+\s+(\w+)\s+(\S.*)$/.exec(line)
    if (!m || m[2] === 'UND' || m[1] === 'FILE' || m[1] === 'SECTION') continue
    const name = m[3]!.replace(/@.*$/, '').trim()
    ;(m[1] === 'FUNC' || m[1] === 'IFUNC' ? functions : others).add(name)
  }
  return { functions, others }
}

/** Aliases (weak + strong at one address): keep the first name. */
function dedupe(symbols: ElfSymbol[]): ElfSymbol[] {
  const out: ElfSymbol[] = []
  for (const s of symbols) {
    const prev = out[out.length - 1]
    if (prev && prev.start === s.start && prev.size === s.size) continue
    out.push(s)
  }
  return out
}

/** Binary search over sorted, non-overlapping-by-start symbols. */
export function findSymbol(symbols: ElfSymbol[], address: number): ElfSymbol | null {
  let lo = 0
  let hi = symbols.length - 1
  let best = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (symbols[mid]!.start <= address) {
      best = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  // Walk back over enclosing symbols that started earlier (nested/overlapping sizes).
  for (let i = best; i >= 0 && i > best - 4; i--) {
    const s = symbols[i]!
    if (address >= s.start && address < s.start + s.size) return s
  }
  return null
}

export interface SourceLocation {
  file: string | null
  line: number | null
  /** The instruction at the address, when the mapper can disassemble (gdb). */
  disasm?: string
}

/** `addr2line -f` output: per address, a function line then a "file:line" line. */
export function parseAddr2line(text: string, count: number): SourceLocation[] {
  const lines = text.split('\n')
  const out: SourceLocation[] = []
  for (let i = 0; i < count; i++) {
    const loc = lines[i * 2 + 1] ?? '??:0'
    const m = /^(.*):(\d+|\?)(?:\s+\(discriminator \d+\))?$/.exec(loc.trim())
    const file = m && m[1] !== '??' && m[1] !== '' ? m[1]! : null
    const line = m && m[2] !== '?' ? Number(m[2]) : null
    out.push({ file, line: file && line ? line : null })
  }
  return out
}

/**
 * Where a distribution keeps an object's detached debug information (Debian's libc6-dbg and
 * -dbgsym packages), from its GNU build ID: /usr/lib/debug/.build-id/ab/cdef….debug. gdb,
 * llvm-symbolizer and Valgrind all look there.
 */
export function buildIdDebugPath(buildId: string | null, root = '/usr/lib/debug'): string | null {
  return buildId && /^[0-9a-f]{4,}$/.test(buildId) ? `${root}/.build-id/${buildId.slice(0, 2)}/${buildId.slice(2)}.debug` : null
}

/**
 * SIGMA's query notation (section 3.3): a sub-space of the statistics cube
 * data structures x code regions x metrics, written `[{a,b,c[*,1]},{foo},{loads}]`.
 *
 * - data items: a variable name, `*` (every data structure, one row each), or an array
 *   section `c[*,1]`: one selector per dimension, outermost first, C order and 0-based:
 *   `*` (all), `3` (one index) or `2:5` (indices 2 to 5 inclusive).
 * - code items: `*` (every function), a function `foo`, a file `conflict.c`, lines
 *   `conflict.c:30` or `conflict.c:28-33`, a loop `loop@conflict.c:28` (the loop whose
 *   header is on that line, nested loops included).
 * - metrics: `loads`, `stores`, `accesses`, `hits`, `misses`, `load_misses`, `store_misses`,
 *   `miss_ratio`, `hit_ratio`, `temporal_hits`, `spatial_hits`, `evictions`, `tlb_misses`,
 *   optionally prefixed by a level (`L2.misses`); without one, the first cache level.
 *
 * Names that are not plain tokens (spaces, commas, braces) are written in double quotes; a
 * quoted code item is always a function name. Pure: no I/O, shared by the UI and the backend.
 */

export type DimSelector = { kind: 'all' } | { kind: 'index'; index: number } | { kind: 'range'; from: number; to: number }

export interface DataItem {
  /** Variable name, or `*` for every data structure. */
  name: string
  /** Per dimension (outermost first); null = the whole data structure. */
  section: DimSelector[] | null
}

export type CodeItem =
  | { kind: 'all' }
  | { kind: 'function'; name: string }
  | { kind: 'file'; file: string }
  | { kind: 'lines'; file: string; from: number; to: number }
  | { kind: 'loop'; file: string; line: number }

export const METRIC_NAMES = [
  'loads',
  'stores',
  'accesses',
  'hits',
  'misses',
  'load_misses',
  'store_misses',
  'miss_ratio',
  'hit_ratio',
  'temporal_hits',
  'spatial_hits',
  'evictions',
  'tlb_misses'
] as const
export type MetricName = (typeof METRIC_NAMES)[number]
/** Metrics computed from other metrics (ratios): reduced from their sums, never summed. */
export const DERIVED_METRICS: readonly MetricName[] = ['miss_ratio', 'hit_ratio']

export interface MetricItem {
  /** A level name of the run (`L1`, `L2`, `DTLB`), or null for the first cache level. */
  level: string | null
  name: MetricName
}

export interface SliceQuery {
  data: DataItem[]
  code: CodeItem[]
  metrics: MetricItem[]
}

export class SliceParseError extends Error {
  constructor(
    readonly reason: string,
    /** 1-based column of the offending character in the query text. */
    readonly column: number
  ) {
    super(`${reason} (column ${column})`)
    this.name = 'SliceParseError'
  }
}

// Characters a bare token may hold; anything else needs double quotes.
const TOKEN_CHAR = /[A-Za-z0-9_.:@+\-/*$~#]/
const PLAIN = /^[A-Za-z0-9_.:@+\-/$~#]+$/

class Cursor {
  pos = 0
  constructor(readonly text: string) {}
  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++
  }
  peek(): string | undefined {
    this.skipSpace()
    return this.text[this.pos]
  }
  fail(reason: string, at = this.pos): never {
    throw new SliceParseError(reason, at + 1)
  }
  expect(ch: string, what: string): void {
    const got = this.peek()
    if (got !== ch) this.fail(got === undefined ? `expected "${ch}" ${what}, but the query ends` : `expected "${ch}" ${what}, found "${got}"`)
    this.pos++
  }
  /** A bare token or a "quoted" string; returns the text, where it started, and whether quoted. */
  token(what: string): { text: string; at: number; quoted: boolean } {
    const c = this.peek()
    const at = this.pos
    if (c === '"') {
      let out = ''
      this.pos++
      for (;;) {
        const ch = this.text[this.pos]
        if (ch === undefined) this.fail('unterminated quoted name: add the closing "', at)
        this.pos++
        if (ch === '"') break
        if (ch === '\\' && this.text[this.pos] !== undefined) out += this.text[this.pos++]
        else out += ch
      }
      if (out.length === 0) this.fail(`empty ${what}`, at)
      return { text: out, at, quoted: true }
    }
    while (this.pos < this.text.length && TOKEN_CHAR.test(this.text[this.pos]!)) this.pos++
    if (this.pos === at) this.fail(c === undefined ? `expected ${what}, but the query ends` : `expected ${what}, found "${c}"`)
    return { text: this.text.slice(at, this.pos), at, quoted: false }
  }
}

function parseIndex(text: string, at: number, c: Cursor): number {
  if (!/^\d+$/.test(text)) c.fail(`array index "${text}" is not a non-negative integer (use *, 3 or 2:5)`, at)
  const n = Number(text)
  if (!Number.isSafeInteger(n)) c.fail(`array index "${text}" is too large`, at)
  return n
}

function parseDim(c: Cursor): DimSelector {
  const t = c.token('an index, a range or *')
  if (t.quoted) c.fail('array indices are numbers, not quoted names', t.at)
  if (t.text === '*') return { kind: 'all' }
  const colon = t.text.indexOf(':')
  if (colon < 0) return { kind: 'index', index: parseIndex(t.text, t.at, c) }
  const from = parseIndex(t.text.slice(0, colon), t.at, c)
  const to = parseIndex(t.text.slice(colon + 1), t.at + colon + 1, c)
  if (to < from) c.fail(`range ${from}:${to} runs backwards; write ${to}:${from}`, t.at)
  return { kind: 'range', from, to }
}

function parseData(c: Cursor): DataItem {
  const t = c.token('a data structure name or *')
  if (!t.quoted && t.text.includes('*') && t.text !== '*') c.fail(`"${t.text}": * stands alone (every data structure); quote names that contain it`, t.at)
  if (c.peek() !== '[') return { name: t.text, section: null }
  if (t.text === '*' && !t.quoted) c.fail('* (every data structure) takes no array section', c.pos)
  c.pos++
  const section: DimSelector[] = [parseDim(c)]
  while (c.peek() === ',') {
    c.pos++
    section.push(parseDim(c))
  }
  c.expect(']', 'to close the array section')
  return { name: t.text, section }
}

const LINES = /^(.+?):(\d+)(?:-(\d+))?$/

function parseCode(c: Cursor): CodeItem {
  const t = c.token('a function, file, file:line or loop@file:line')
  if (t.quoted) return { kind: 'function', name: t.text }
  if (t.text === '*') return { kind: 'all' }
  if (t.text.includes('*')) c.fail(`"${t.text}": * stands alone (every function)`, t.at)
  if (t.text.startsWith('loop@')) {
    const m = /^loop@(.+):(\d+)$/.exec(t.text)
    if (!m) c.fail(`"${t.text}": write a loop as loop@FILE:LINE (the line of its header)`, t.at)
    return { kind: 'loop', file: m[1]!, line: Number(m[2]) }
  }
  const m = LINES.exec(t.text)
  if (m) {
    const from = Number(m[2])
    const to = m[3] === undefined ? from : Number(m[3])
    if (from < 1) c.fail(`line numbers start at 1`, t.at)
    if (to < from) c.fail(`line range ${from}-${to} runs backwards; write ${to}-${from}`, t.at)
    return { kind: 'lines', file: m[1]!, from, to }
  }
  if (t.text.includes(':')) c.fail(`"${t.text}": write lines as FILE:LINE or FILE:FROM-TO`, t.at)
  if (t.text.includes('.') || t.text.includes('/')) return { kind: 'file', file: t.text }
  return { kind: 'function', name: t.text }
}

function parseMetric(c: Cursor): MetricItem {
  const t = c.token('a metric such as misses or L2.loads')
  const dot = t.text.lastIndexOf('.')
  const level = !t.quoted && dot > 0 ? t.text.slice(0, dot) : null
  const name = level === null ? t.text : t.text.slice(dot + 1)
  if (!(METRIC_NAMES as readonly string[]).includes(name))
    c.fail(`unknown metric "${name}"; metrics are ${METRIC_NAMES.join(', ')} (optionally LEVEL.metric)`, level === null ? t.at : t.at + dot + 1)
  if (level !== null && !/^[A-Za-z][A-Za-z0-9_-]{0,15}$/.test(level)) c.fail(`"${level}" is not a level name like L1 or L2`, t.at)
  return { level, name: name as MetricName }
}

function parseSet<T>(c: Cursor, what: string, item: (c: Cursor) => T): T[] {
  c.expect('{', `to open the ${what} set`)
  if (c.peek() === '}') c.fail(`the ${what} set is empty; list at least one, or * for all`)
  const out = [item(c)]
  while (c.peek() === ',') {
    c.pos++
    out.push(item(c))
  }
  c.expect('}', `to close the ${what} set`)
  return out
}

/** Parses the notation; throws SliceParseError naming the problem and its column. */
export function parseSliceQuery(text: string): SliceQuery {
  const c = new Cursor(text)
  c.expect('[', 'to start the query (e.g. [{A,B},{sumfunc},{misses}])')
  const data = parseSet(c, 'data structure', parseData)
  c.expect(',', 'between the data structures and the code regions')
  const code = parseSet(c, 'code region', parseCode)
  c.expect(',', 'between the code regions and the metrics')
  const metrics = parseSet(c, 'metric', parseMetric)
  c.expect(']', 'to end the query')
  if (c.peek() !== undefined) c.fail(`unexpected "${c.peek()}" after the end of the query`)
  return { data, code, metrics }
}

function quote(name: string): string {
  return PLAIN.test(name) ? name : `"${name.replace(/["\\]/g, (m) => '\\' + m)}"`
}

export function printDim(d: DimSelector): string {
  return d.kind === 'all' ? '*' : d.kind === 'index' ? String(d.index) : `${d.from}:${d.to}`
}

export function printDataItem(d: DataItem): string {
  // `*` as a name would read as "every data structure": only the wildcard itself goes bare.
  const name = d.name === '*' && d.section === null ? '*' : d.name === '*' ? '"*"' : quote(d.name)
  return d.section ? `${name}[${d.section.map(printDim).join(',')}]` : name
}

export function printCodeItem(c: CodeItem): string {
  switch (c.kind) {
    case 'all':
      return '*'
    case 'function': {
      // A bare name that would read back as a file, lines or a loop must be quoted.
      const bare = PLAIN.test(c.name) && !/[.:/@]/.test(c.name) && c.name !== '*'
      return bare ? c.name : `"${c.name.replace(/["\\]/g, (m) => '\\' + m)}"`
    }
    case 'file':
      return c.file
    case 'lines':
      return c.from === c.to ? `${c.file}:${c.from}` : `${c.file}:${c.from}-${c.to}`
    case 'loop':
      return `loop@${c.file}:${c.line}`
  }
}

export function printMetricItem(m: MetricItem): string {
  return m.level ? `${m.level}.${m.name}` : m.name
}

/** Canonical text: parses back to an equal query. */
export function printSliceQuery(q: SliceQuery): string {
  return `[{${q.data.map(printDataItem).join(',')}},{${q.code.map(printCodeItem).join(',')}},{${q.metrics.map(printMetricItem).join(',')}}]`
}

/**
 * The names a slice query uses, checked against what the session holds: a data structure,
 * function or file the run never saw would otherwise answer zeros a user believes. Each
 * unknown item is named, with the closest known names. Pure: the query and name lists in,
 * an error message (or null) out.
 */
import { printCodeItem, type SliceQuery } from '../../../shared/slice-notation'

/** Each list in the order its hints should show it (the traced references' names first). */
export interface SessionNames {
  /** Data structures the references are attributed to (`unknown` included when some are not). */
  variables: string[]
  functions: string[]
  /** Source files as stored (full paths). */
  files: string[]
}

const fileMatches = (file: string, want: string) => file === want || file.endsWith('/' + want)
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1)

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }
  return prev[b.length]!
}

/** "did you mean sumfunc?" when a known name is close; otherwise the first few known names. */
function hint(name: string, known: string[], what: string): string {
  // One edit in three characters: "sumfnc" is close to "sumfunc", "Q" to nothing.
  const close = known.filter((k) => {
    const limit = Math.floor(Math.max(k.length, name.length) / 3)
    return limit >= 1 && distance(k.toLowerCase(), name.toLowerCase()) <= limit
  })
  if (close.length > 0) return `did you mean ${close.slice(0, 3).join(' or ')}?`
  if (known.length === 0) return `this session has no ${what}.`
  const shown = known.slice(0, 8).join(', ')
  return `its ${what} are ${shown}${known.length > 8 ? `, … (${known.length} in all)` : ''}.`
}

export function unknownSliceNames(query: SliceQuery, names: SessionNames): string | null {
  const problems: string[] = []
  const variables = [...new Set(names.variables)]
  for (const d of query.data)
    if (d.name !== '*' && d.section === null && !variables.includes(d.name)) problems.push(`no data structure "${d.name}" in this run; ${hint(d.name, variables, 'data structures')}`)
  const functions = [...new Set(names.functions)]
  const files = [...new Set(names.files)]
  const fileNames = [...new Set(files.map(baseName))]
  for (const c of query.code) {
    if (c.kind === 'function' && !functions.includes(c.name)) problems.push(`no traced function "${c.name}"; ${hint(c.name, functions, 'traced functions')}`)
    if ((c.kind === 'file' || c.kind === 'lines' || c.kind === 'loop') && !files.some((f) => fileMatches(f, c.file)))
      problems.push(`no source file "${c.file}" (in ${printCodeItem(c)}) among the traced references; ${hint(c.file, fileNames, 'files')}`)
  }
  return problems.length === 0 ? null : `Query: ${problems.join(' ')}`
}

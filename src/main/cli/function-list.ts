import { StrideError } from '../../shared/errors'

/**
 * --functions F1,F2: commas inside C++ parameter or template lists do not split
 * (`--functions "max<int, int>,ns::f(int, char)"` is two functions).
 */
export function splitFunctionList(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let current = ''
  for (const c of text) {
    if (c === '(' || c === '<') depth++
    else if (c === ')' || c === '>') depth = Math.max(0, depth - 1)
    if (c === ',' && depth === 0) {
      out.push(current)
      current = ''
    } else current += c
  }
  out.push(current)
  return out.map((f) => f.trim()).filter(Boolean)
}

/**
 * `--functions` as given: its list, refused when it names none (`--functions ",,,"` would
 * otherwise trace the whole program). Without the flag, the empty list (the whole program).
 */
export function functionsFlag(text: string | undefined, command = 'trace'): string[] {
  if (text === undefined) return []
  const list = splitFunctionList(text)
  if (list.length === 0) throw new StrideError(`stride ${command}: --functions "${text.length > 40 ? `${text.slice(0, 40)}…` : text}" names no function; give them as F1,F2, or leave --functions out to trace the whole program.`)
  return list
}

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

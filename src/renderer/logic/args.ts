/**
 * Split a command-line argument string the way a POSIX shell would for the simple cases
 * users type: whitespace separates, single and double quotes group, backslash escapes.
 * No expansion of any kind: the backend launches the program without a shell.
 */
export function splitArgs(text: string): string[] {
  const out: string[] = []
  let cur = ''
  let inArg = false
  let quote: '"' | "'" | null = null
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote) {
      if (c === quote) quote = null
      else if (c === '\\' && quote === '"' && i + 1 < text.length) cur += text[++i]
      else cur += c
    } else if (c === '"' || c === "'") {
      quote = c
      inArg = true
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i]
      inArg = true
    } else if (/\s/.test(c)) {
      if (inArg) out.push(cur)
      cur = ''
      inArg = false
    } else {
      cur += c
      inArg = true
    }
  }
  if (inArg) out.push(cur)
  return out
}

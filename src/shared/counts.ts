/**
 * An integer count with thousands separators, as `n.toLocaleString('en-US')` writes it.
 * Written out because the first toLocaleString of a process loads ICU's number formats:
 * 25-60 ms of the CLI's main thread during a trace's first progress line.
 */
export function groupDigits(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  const digits = String(Math.abs(Math.round(n)))
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1)
  for (let at = out.length; at < digits.length; at += 3) out += ',' + digits.slice(at, at + 3)
  return (n < 0 && out !== '0' ? '-' : '') + out
}

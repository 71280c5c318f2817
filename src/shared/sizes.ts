/** Size parsing shared by the CLI and forms: bytes or K/M/G suffixes (binary: 32K = 32768). */
export function parseSize(text: string): number | null {
  const m = /^\s*(\d+)\s*([kKmMgG])?[bB]?\s*$/.exec(text)
  if (!m) return null
  const n = Number(m[1])
  const mult = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'g'] ?? 1
  const v = n * mult
  return Number.isSafeInteger(v) ? v : null
}

export function formatSize(bytes: number): string {
  for (const [unit, div] of [
    ['G', 1024 ** 3],
    ['M', 1024 ** 2],
    ['K', 1024]
  ] as const) {
    if (bytes >= div && bytes % div === 0) return `${bytes / div}${unit}`
  }
  return String(bytes)
}

/** `NAME:SIZE:ASSOC:LINE[:POLICY]` as in CLI.md. Returns an error string on bad input. */
export function parseCacheSpec(
  spec: string
): { name: string; size: number; assoc: number; lineSize: number; policy: 'lru' } | string {
  const parts = spec.split(':')
  if (parts.length < 4 || parts.length > 5)
    return `--cache "${spec}" must look like NAME:SIZE:ASSOC:LINE[:POLICY], e.g. L1:32K:8:64`
  const [name, sizeText, assocText, lineText, policy = 'lru'] = parts as [string, string, string, string, string?]
  const size = parseSize(sizeText)
  const lineSize = parseSize(lineText)
  const assoc = Number(assocText)
  if (!name) return `--cache "${spec}": the level needs a name, e.g. L1`
  if (size === null) return `--cache "${spec}": size "${sizeText}" is not a size (use bytes or K/M/G, e.g. 32K)`
  if (!Number.isInteger(assoc) || assoc <= 0) return `--cache "${spec}": associativity "${assocText}" must be a positive integer`
  if (lineSize === null) return `--cache "${spec}": line size "${lineText}" is not a size (e.g. 64)`
  if (policy !== 'lru') return `--cache "${spec}": policy "${policy}" is not supported yet (use lru)`
  return { name, size, assoc, lineSize, policy }
}

/** Parses the interposer's lines (see resources/native/allocs.c) as they come out of Valgrind's log. */

export type AllocEvent =
  | { kind: 'alloc'; ptr: number; size: number; old: number; context: number[] }
  | { kind: 'free'; ptr: number }

const PREFIX = /^\*\*\d+\*\* stride-alloc /

export function isAllocLine(line: string): boolean {
  return PREFIX.test(line)
}

export function parseAllocLine(line: string): AllocEvent | null {
  const fields = line.replace(PREFIX, '').trim().split(/\s+/)
  const hex = (s: string | undefined) => (s && /^[0-9a-f]{1,13}$/i.test(s) ? parseInt(s, 16) : NaN)
  const op = fields[0]
  if (op === 'f') {
    const ptr = hex(fields[1])
    return Number.isNaN(ptr) ? null : { kind: 'free', ptr }
  }
  if (op !== 'm' && op !== 'c' && op !== 'r') return null
  const [ptr, size, old, ...context] = fields.slice(1).map(hex)
  if ([ptr, size, old].some((v) => v === undefined || Number.isNaN(v)) || context.some(Number.isNaN)) return null
  return { kind: 'alloc', ptr: ptr!, size: size!, old: old!, context: context.filter((c) => c !== 0) }
}

/**
 * Parses what the interposer (resources/native/allocs.c) prints through Valgrind's log, in
 * order with the trace: an allocation line, then Valgrind's backtrace of it, one frame a line.
 */

export type AllocEvent =
  | { kind: 'alloc'; ptr: number; size: number; old: number; site: number }
  | { kind: 'free'; ptr: number }

const PREFIX = /^\*\*\d+\*\* stride-alloc /
const FRAME = /^==\d+==\s+(?:at|by) 0x([0-9A-Fa-f]{1,13}):/

export function isAllocLine(line: string): boolean {
  return PREFIX.test(line)
}

/** The instruction address of one backtrace frame line, or null for any other line. */
export function parseFrameLine(line: string): number | null {
  const m = FRAME.exec(line)
  return m ? parseInt(m[1]!, 16) : null
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
  const [ptr, size, old, site] = fields.slice(1, 5).map(hex)
  if ([ptr, size, old, site].some((v) => v === undefined || Number.isNaN(v))) return null
  return { kind: 'alloc', ptr: ptr!, size: size!, old: old!, site: site! }
}

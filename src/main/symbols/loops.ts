/**
 * Loop nests from the binary's control flow: a jump to an earlier address of the same
 * function is a back edge, and [target, jump] is a loop (several back edges to one header
 * make one loop, up to the last of them). Nesting is containment. Read from objdump's
 * disassembly (binutils), mapped to source lines afterwards.
 */
import { runTool } from './run-tool'

export interface Loop {
  /** Link-time address of the loop header (the back edge's target). */
  start: number
  /** Link-time address of the last back-edge jump (inclusive). */
  end: number
  function: string
  depth: number
  /** Index of the enclosing loop in the same list, or -1. */
  parent: number
}

/** Pure: loops of `objdump -d --no-show-raw-insn` output, outermost first. */
export function parseLoops(disassembly: string): Loop[] {
  const headers = new Map<string, { start: number; end: number; function: string }>()
  let fn = ''
  let fnStart = 0
  for (const line of disassembly.split('\n')) {
    const f = /^([0-9a-f]+) <(.+)>:$/.exec(line)
    if (f) {
      fnStart = parseInt(f[1]!, 16)
      fn = f[2]!
      continue
    }
    const j = /^\s*([0-9a-f]+):\s+(j[a-z]+|loop[a-z]*)\s+([0-9a-f]+) <([^>+]+)(?:\+0x[0-9a-f]+)?>/.exec(line)
    if (!j || j[4] !== fn) continue
    const at = parseInt(j[1]!, 16)
    const target = parseInt(j[3]!, 16)
    if (target > at || target < fnStart) continue
    const key = `${fn}@${target}`
    const known = headers.get(key)
    if (known) known.end = Math.max(known.end, at)
    else headers.set(key, { start: target, end: at, function: fn })
  }
  const loops = [...headers.values()].sort((a, b) => a.start - b.start || b.end - a.end)
  const out: Loop[] = []
  for (const l of loops) {
    // The innermost earlier loop that contains this one is its parent.
    let parent = -1
    for (let i = out.length - 1; i >= 0; i--) {
      const o = out[i]!
      if (o.function === l.function && o.start <= l.start && l.end <= o.end) {
        parent = i
        break
      }
    }
    out.push({ ...l, parent, depth: parent < 0 ? 0 : out[parent]!.depth + 1 })
  }
  return out
}

/** The innermost loop containing `address`, or -1. */
export function innermostLoop(loops: Loop[], address: number): number {
  let best = -1
  for (let i = 0; i < loops.length; i++) {
    const l = loops[i]!
    if (address >= l.start && address <= l.end && (best < 0 || l.depth > loops[best]!.depth)) best = i
  }
  return best
}

export async function readLoops(program: string): Promise<Loop[]> {
  return parseLoops(await runTool('objdump', ['-d', '--no-show-raw-insn', '-M', 'att', program]))
}

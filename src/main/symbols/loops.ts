/**
 * Loop nests from the binary's control flow: a jump to an earlier address of the same
 * function that the flow from that address reaches again is a back edge, and [target, jump] is a loop (several back edges to one header
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

interface Instruction {
  at: number
  /** Where it may go besides the next instruction (a jump's target), or null. */
  target: number | null
  /** Control never falls through to the next instruction (jmp, ret, ud2, hlt). */
  stops: boolean
}

/**
 * Whether the backward jump at `at` closes a loop headed at `target`: the jump is reached
 * from the header by flow that stays in [target, at]. A backward jump to a shared epilogue
 * (`jmp` to a `ret` placed earlier) is not a loop: from the epilogue control leaves.
 */
function closesLoop(code: Instruction[], target: number, at: number): boolean {
  // The function's instructions are in address order: [lo, hi] by binary search.
  const lowerBound = (x: number, from = 0, to = code.length) => {
    let a = from
    let b = to
    while (a < b) {
      const mid = (a + b) >>> 1
      if (code[mid]!.at < x) a = mid + 1
      else b = mid
    }
    return a
  }
  const lo = lowerBound(target)
  const hi = lowerBound(at + 1) - 1
  // Most loop bodies fall through from header to latch: no search needed.
  let k = lo
  while (k < hi && !code[k]!.stops) k++
  if (k === hi) return true
  // Otherwise a search over the range, allocation-light (gdb has ~30,000 backward jumps).
  const seen = new Uint8Array(hi - lo + 1)
  const todo = [lo]
  while (todo.length > 0) {
    const i = todo.pop()!
    if (i > hi || seen[i - lo]) continue
    seen[i - lo] = 1
    if (i === hi) return true
    const insn = code[i]!
    if (!insn.stops) todo.push(i + 1)
    if (insn.target !== null && insn.target >= target && insn.target <= at) {
      const j = lowerBound(insn.target, lo, hi + 1)
      if (j <= hi && code[j]!.at === insn.target) todo.push(j)
    }
  }
  return false
}

/** Pure: loops of `objdump -d --no-show-raw-insn` output, outermost first. */
export function parseLoops(disassembly: string): Loop[] {
  const headers = new Map<string, { start: number; end: number; function: string }>()
  const code = new Map<string, Instruction[]>()
  const backEdges: Array<{ fn: string; at: number; target: number }> = []
  let fn = ''
  let fnStart = 0
  for (const line of disassembly.split('\n')) {
    const f = /^([0-9a-f]+) <(.+)>:$/.exec(line)
    if (f) {
      fnStart = parseInt(f[1]!, 16)
      fn = f[2]!
      continue
    }
    const insn = /^\s*([0-9a-f]+):\s+([a-z][\w.]*)/.exec(line)
    if (!insn) continue
    const at = parseInt(insn[1]!, 16)
    const mnemonic = insn[2]!
    const j = /^\s*[0-9a-f]+:\s+(j[a-z]+|loop[a-z]*)\s+([0-9a-f]+) <([^>+]+)(?:\+0x[0-9a-f]+)?>/.exec(line)
    const target = j && j[3] === fn ? parseInt(j[2]!, 16) : null
    const list = code.get(fn) ?? []
    list.push({ at, target, stops: /^(jmp|ret|ud2|hlt)/.test(mnemonic) })
    code.set(fn, list)
    if (target !== null && target <= at && target >= fnStart) backEdges.push({ fn, at, target })
  }
  for (const { fn: name, at, target } of backEdges) {
    if (!closesLoop(code.get(name)!, target, at)) continue
    const key = `${name}@${target}`
    const known = headers.get(key)
    if (known) known.end = Math.max(known.end, at)
    else headers.set(key, { start: target, end: at, function: name })
  }
  const loops = [...headers.values()].sort((a, b) => a.start - b.start || b.end - a.end)
  const out: Loop[] = []
  // Sorted by start (the larger first on ties), the loops that can still contain the next one
  // form a stack: its top is the innermost earlier loop containing it (linear, not quadratic:
  // a program like gdb has tens of thousands of loops).
  const open: number[] = []
  for (const l of loops) {
    while (open.length > 0) {
      const o = out[open[open.length - 1]!]!
      if (o.function === l.function && o.start <= l.start && l.end <= o.end) break
      open.pop()
    }
    const parent = open.length > 0 ? open[open.length - 1]! : -1
    out.push({ ...l, parent, depth: parent < 0 ? 0 : out[parent]!.depth + 1 })
    open.push(out.length - 1)
  }
  return out
}

/**
 * The loops containing an address, found without a pass over every loop: a whole-program
 * trace names thousands of points in a binary of thousands of loops (millions of steps, a pass
 * per point). Loops sorted by start; a prefix maximum
 * of their ends stops the walk back from the last loop starting at or before the address.
 */
export class LoopIndex {
  private readonly order: number[]
  private readonly starts: Float64Array
  private readonly maxEnd: Float64Array

  constructor(private readonly loops: readonly Loop[]) {
    this.order = loops.map((_, i) => i).sort((a, b) => loops[a]!.start - loops[b]!.start || a - b)
    this.starts = Float64Array.from(this.order, (i) => loops[i]!.start)
    this.maxEnd = new Float64Array(this.order.length)
    let most = -Infinity
    this.order.forEach((i, k) => (this.maxEnd[k] = most = Math.max(most, loops[i]!.end)))
  }

  /** Indexes (into the loops given) of every loop containing `address`, ascending. */
  containing(address: number): number[] {
    let a = 0
    let b = this.starts.length
    while (a < b) {
      const mid = (a + b) >>> 1
      if (this.starts[mid]! <= address) a = mid + 1
      else b = mid
    }
    const out: number[] = []
    for (let k = a - 1; k >= 0 && this.maxEnd[k]! >= address; k--) if (this.loops[this.order[k]!]!.end >= address) out.push(this.order[k]!)
    return out.sort((x, y) => x - y)
  }

  /** The innermost loop containing `address` (the deepest; the first listed of equals), or -1. */
  innermost(address: number): number {
    let best = -1
    for (const i of this.containing(address)) if (best < 0 || this.loops[i]!.depth > this.loops[best]!.depth) best = i
    return best
  }
}

export async function readLoops(program: string): Promise<Loop[]> {
  return parseLoops(await runTool('objdump', ['-d', '--no-show-raw-insn', '-M', 'att', program]))
}

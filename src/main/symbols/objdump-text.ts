/**
 * Instruction text for many addresses of one object from a single objdump over their span,
 * in gdb's `x/i` form (`call 0x1139 <f>`, `# 0x4010 <A>`). Cheaper than gdb's per-address
 * `x/i` where the addresses are dense (ld.so's 3,900 traced instructions: 0.09 s against ~1 s).
 */
import type { SourceLocation } from './elf-parse'
import { runTool } from './run-tool'

/**
 * Whether one objdump over the span beats gdb's x/i per address: ~0.4 us a byte against ~250
 * us an address plus gdb's own start (~0.1 s: 121 ms for a small program's 122 instructions,
 * where objdump took 8).
 */
export function objdumpIsCheaper(linkAddresses: number[]): boolean {
  if (linkAddresses.length === 0) return false
  const [lo, hi] = bounds(linkAddresses)
  return hi - lo < 250_000 + linkAddresses.length * 600
}

/** Lowest and highest address (a loop: spreading a large list into Math.min overflows the stack). */
function bounds(addresses: number[]): [number, number] {
  let lo = Infinity
  let hi = -Infinity
  for (const a of addresses) {
    if (a < lo) lo = a
    if (a > hi) hi = a
  }
  return [lo, hi]
}

/**
 * Pure: address -> instruction text of `objdump -d --no-show-raw-insn -M att` output, as gdb
 * writes it; with `wanted`, only those addresses' (a span's other instructions are most of it:
 * lz4's 40,000 lines for its 7,000 traced instructions, each line four rewrites).
 */
export function parseObjdumpText(text: string, wanted?: ReadonlySet<number>): Map<number, string> {
  const out = new Map<number, string>()
  for (const line of text.split('\n')) {
    const m = /^\s*([0-9a-f]+):\t(.+)$/.exec(line)
    if (!m) continue
    const address = parseInt(m[1]!, 16)
    if (wanted && !wanted.has(address)) continue
    const insn = m[2]!
      .replace(/\t/g, ' ')
      .replace(/^(\S+\s+)([0-9a-f]+) </, '$10x$2 <') // a branch target
      .replace(/# ([0-9a-f]+)( <|$)/, '# 0x$1$2') // a rip-relative comment
      .replace(/<([^<>+]+)\+0x([0-9a-f]+)>/g, (_, name: string, off: string) => `<${name}+${parseInt(off, 16)}>`) // gdb's offsets are decimal
      .trimEnd()
    out.set(address, insn)
  }
  return out
}

export async function objdumpInstructions(path: string, linkAddresses: number[]): Promise<SourceLocation[]> {
  const [lo, last] = bounds(linkAddresses)
  const hi = last + 16
  const text = await runTool('objdump', ['-d', '--no-show-raw-insn', '-M', 'att', `--start-address=0x${lo.toString(16)}`, `--stop-address=0x${hi.toString(16)}`, path])
  const byAddress = parseObjdumpText(text, new Set(linkAddresses))
  return linkAddresses.map((a) => {
    const disasm = byAddress.get(a)
    return disasm ? { file: null, line: null, disasm } : { file: null, line: null }
  })
}

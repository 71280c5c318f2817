/**
 * Where a function with no symbol of its own was inlined (PolyBench's static kernels are
 * inlined into main at -O2): its DW_TAG_inlined_subroutine entries, read by llvm-dwarfdump
 * (Debian: llvm, beside llvm-symbolizer), each placed in the function whose code holds it.
 * Only for the error that says so: `--functions kernel_2mm` is then `--functions main`.
 */
import { basename } from 'node:path'
import { runTool } from './run-tool'

export interface InlineSite {
  /** The call's source location, as the debug information names it. */
  file: string | null
  line: number | null
  /** An address of the inlined code (link time), or null when the entry gives none. */
  address: number | null
}

export interface InlinedFunction {
  /** Whether the debug information describes the function at all. */
  described: boolean
  /** Whether it also has code of its own (an out-of-line copy): then it was not inlined everywhere. */
  ownCode: boolean
  sites: InlineSite[]
}

/**
 * `llvm-dwarfdump --name=NAME` output: the inlined copies of NAME (DW_TAG_inlined_subroutine
 * whose abstract origin is NAME) and whether NAME is described at all.
 */
export function parseInlineSites(text: string, name: string): InlinedFunction {
  const sites: InlineSite[] = []
  let described = false
  let ownCode = false
  // One entry per DIE: "0x0000010a: DW_TAG_inlined_subroutine" and its attribute lines.
  const entries = text.split(/\n(?=\s*0x[0-9a-f]+:\s+DW_TAG_)/i)
  for (const entry of entries) {
    const tag = /^\s*0x[0-9a-f]+:\s+(DW_TAG_\w+)/i.exec(entry)?.[1]
    if (tag === 'DW_TAG_subprogram' && new RegExp(`DW_AT_(?:name|abstract_origin)\\s+\\((?:0x[0-9a-f]+ )?"${escape(name)}"\\)`, 'i').test(entry)) {
      described = true
      if (/DW_AT_(?:low_pc|ranges)\s/.test(entry)) ownCode = true
    }
    if (tag !== 'DW_TAG_inlined_subroutine') continue
    if (!new RegExp(`DW_AT_abstract_origin\\s+\\(0x[0-9a-f]+ "${escape(name)}"\\)`, 'i').test(entry)) continue
    described = true
    const file = /DW_AT_call_file\s+\("([^"]*)"\)/.exec(entry)?.[1] ?? null
    const line = /DW_AT_call_line\s+\((\d+)\)/.exec(entry)?.[1]
    const pc = /DW_AT_(?:entry_pc|low_pc)\s+\((0x[0-9a-f]+)\)/i.exec(entry)?.[1] ?? /DW_AT_ranges\s+\(0x[0-9a-f]+\s*\n?\s*\[(0x[0-9a-f]+),/i.exec(entry)?.[1]
    sites.push({ file, line: line ? Number(line) : null, address: pc ? Number.parseInt(pc, 16) : null })
  }
  return { described, ownCode, sites }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** NAME's inlined copies in a program; null when llvm-dwarfdump is missing or fails. */
export async function inlinedFunction(program: string, name: string): Promise<InlinedFunction | null> {
  try {
    return parseInlineSites(await runTool('llvm-dwarfdump', ['--debug-info', `--name=${name}`, program]), name)
  } catch {
    return null
  }
}

/**
 * The callers NAME was inlined into, in order of first appearance, each with its call
 * lines (`main (2mm.c:123)`): the symbols whose code holds the inlined copies.
 */
export function inlineCallers(sites: InlineSite[], functions: Array<{ name: string; start: number; size: number }>): Array<{ caller: string | null; calls: string[] }> {
  const out: Array<{ caller: string | null; calls: string[] }> = []
  for (const site of sites) {
    const holder = site.address === null ? undefined : functions.find((f) => f.size > 0 && site.address! >= f.start && site.address! < f.start + f.size)
    const caller = holder?.name ?? null
    let group = out.find((g) => g.caller === caller)
    if (!group) out.push((group = { caller, calls: [] }))
    const at = site.file && site.line ? `${basename(site.file)}:${site.line}` : null
    if (at && !group.calls.includes(at)) group.calls.push(at)
  }
  return out
}

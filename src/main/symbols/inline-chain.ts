/**
 * The inline chain at an instruction address: the source locations from the innermost inlined
 * function out to the function the code was compiled into. At -O2 an allocation helper
 * (xmalloc, polybench_alloc_data) is usually inlined, so its caller's line is not a separate
 * stack frame, only a level of this chain. llvm-symbolizer (Debian: llvm) answers in JSON for
 * a batch (symbolizer-process.ts: one process per thread for all objects); addr2line -i
 * (binutils) is the fallback, one address at a time.
 */
import { runTool } from './run-tool'
import { namable, symbolizeLines } from './symbolizer-process'

export interface InlineLevel {
  file: string
  line: number
  function: string | null
  /** The column, where the symbolizer gives one: tells apart two inlined calls on one line. */
  column?: number
}

interface SymbolizerReply {
  Address?: string
  Symbol?: Array<{ FileName?: string; Line?: number; Column?: number; FunctionName?: string }>
}

/** llvm-symbolizer --output-style=JSON output: one reply per address, levels innermost first. */
export function parseSymbolizerJson(text: string): InlineLevel[][] {
  const out: InlineLevel[][] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    let replies: SymbolizerReply[]
    try {
      const v = JSON.parse(line) as SymbolizerReply | SymbolizerReply[]
      replies = Array.isArray(v) ? v : [v]
    } catch {
      continue
    }
    for (const r of replies)
      out.push(
        (r.Symbol ?? [])
          .filter((s) => s.FileName && s.Line && s.Line > 0)
          .map((s) => ({ file: s.FileName!, line: s.Line!, function: s.FunctionName && s.FunctionName !== '??' ? s.FunctionName : null, ...(s.Column ? { column: s.Column } : {}) }))
      )
  }
  return out
}

/** addr2line -f -i output for one address: function, file:line pairs, innermost first. */
export function parseAddr2lineInline(text: string): InlineLevel[] {
  const lines = text.split('\n').filter((l) => l.length > 0)
  const out: InlineLevel[] = []
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const m = /^(.*):(\d+)(?: \(discriminator \d+\))?$/.exec(lines[i + 1]!)
    if (m && m[1] !== '??' && Number(m[2]) > 0) out.push({ file: m[1]!, line: Number(m[2]), function: lines[i] === '??' ? null : lines[i]! })
  }
  return out
}

let symbolizerMissing = false

export async function inlineChains(path: string, linkAddresses: number[], options: { symbolizerOnly?: boolean } = {}): Promise<InlineLevel[][]> {
  if (linkAddresses.length === 0) return []
  const hex = linkAddresses.map((a) => '0x' + a.toString(16))
  if (!symbolizerMissing) {
    try {
      // The thread's running llvm-symbolizer; a path it cannot be told on a line gets a run of its own.
      const text = namable(path)
        ? (await symbolizeLines(path, linkAddresses)).join('\n')
        : await runTool('llvm-symbolizer', ['--output-style=JSON', '--inlines', `--obj=${path}`], hex.join('\n') + '\n')
      const replies = parseSymbolizerJson(text)
      if (replies.length === linkAddresses.length) return replies
    } catch (e) {
      if ((e as { code?: string }).code !== 'tool-missing') throw e
      symbolizerMissing = true
    }
  }
  if (options.symbolizerOnly) throw new Error('llvm-symbolizer is not installed')
  const out: InlineLevel[][] = []
  for (const h of hex) out.push(parseAddr2lineInline(await runTool('addr2line', ['-f', '-i', '-e', path, h])))
  return out
}

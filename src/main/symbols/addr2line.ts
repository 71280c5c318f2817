/**
 * Maps link-time instruction addresses of one object to file:line. The line is the line
 * table's last row at the address, as Valgrind (and so Cachegrind) and addr2line take it:
 * llvm-symbolizer answers that (gdb's `info line` picks another row where an instruction has
 * several, e.g. a C++ line and the inlined hashtable.h line at one address). gdb still gives
 * the instruction text, and the lines where llvm-symbolizer is not installed; addr2line when
 * neither is.
 */
import { parseAddr2line, type SourceLocation } from './elf-parse'
import { gdbSourceLocations } from './gdb-lines'
import { inlineChains } from './inline-chain'
import { runTool } from './run-tool'
import { objdumpInstructions, objdumpIsCheaper } from './objdump-text'

let gdbMissing = false

export async function sourceLocations(path: string, linkAddresses: number[]): Promise<SourceLocation[]> {
  if (linkAddresses.length === 0) return []
  // llvm-symbolizer (lines) and gdb (instruction text) run side by side.
  const pendingRows = lineTableRows(path, linkAddresses)
  if (!gdbMissing) {
    try {
      // gdb gives the instruction text only, unless llvm-symbolizer cannot give the lines; for
      // dense addresses (ld.so's start-up, a small program's text) one objdump over their span does.
      const dense = objdumpIsCheaper(linkAddresses)
      const [rows, texts] = await Promise.all([pendingRows, dense ? objdumpInstructions(path, linkAddresses) : gdbSourceLocations(path, linkAddresses, false)])
      if (!rows) return await gdbSourceLocations(path, linkAddresses, true)
      return texts.map((t, i) => ({ ...t, file: rows[i]?.file ?? null, line: rows[i]?.line ?? null }))
    } catch (e) {
      if ((e as { code?: string }).code !== 'tool-missing') throw e
      gdbMissing = true
    }
  }
  const rows = await pendingRows
  if (rows) return rows.map((r) => r ?? { file: null, line: null })
  const input = linkAddresses.map((a) => '0x' + a.toString(16)).join('\n') + '\n'
  const out = await runTool('addr2line', ['-e', path, '-f'], input)
  return parseAddr2line(out, linkAddresses.length)
}

/** The line-table row per address (the innermost inline level), or null without llvm-symbolizer. */
async function lineTableRows(path: string, linkAddresses: number[]): Promise<Array<SourceLocation | null> | null> {
  try {
    const chains = await inlineChains(path, linkAddresses, { symbolizerOnly: true })
    if (chains.length !== linkAddresses.length) return null
    return chains.map((c) => (c[0] ? { file: c[0].file, line: c[0].line } : null))
  } catch {
    return null
  }
}

/**
 * Maps link-time instruction addresses of one object to file:line. gdb first (right on DWARF 5,
 * see gdb-lines.ts); addr2line when gdb is not installed.
 */
import { parseAddr2line, type SourceLocation } from './elf-parse'
import { gdbSourceLocations } from './gdb-lines'
import { runTool } from './run-tool'

let gdbMissing = false

export async function sourceLocations(path: string, linkAddresses: number[]): Promise<SourceLocation[]> {
  if (linkAddresses.length === 0) return []
  if (!gdbMissing) {
    try {
      return await gdbSourceLocations(path, linkAddresses)
    } catch (e) {
      if ((e as { code?: string }).code !== 'tool-missing') throw e
      gdbMissing = true
    }
  }
  const input = linkAddresses.map((a) => '0x' + a.toString(16)).join('\n') + '\n'
  const out = await runTool('addr2line', ['-e', path, '-f'], input)
  return parseAddr2line(out, linkAddresses.length)
}

/** Maps link-time instruction addresses of one object to file:line, in one addr2line call. */
import { parseAddr2line, type SourceLocation } from './elf-parse'
import { runTool } from './run-tool'

export async function sourceLocations(path: string, linkAddresses: number[]): Promise<SourceLocation[]> {
  if (linkAddresses.length === 0) return []
  const input = linkAddresses.map((a) => '0x' + a.toString(16)).join('\n') + '\n'
  const out = await runTool('addr2line', ['-e', path, '-f'], input)
  return parseAddr2line(out, linkAddresses.length)
}

/**
 * Maps link-time instruction addresses to file:line with gdb in batch mode (its Python API).
 * Why gdb and not addr2line: binutils 2.40's addr2line misnames files in DWARF 5 line tables
 * (GCC 12's default), e.g. puts code from an #included conflict.c under conflict_padded.c.
 * gdb reads them right, and gives the full path as Cachegrind does (compilation dir + name).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SourceLocation } from './elf-parse'
import { runTool } from './run-tool'

// Where several rows share an address (DWARF 5 "views"), the last row wins, as in
// Valgrind's reader: find_pc_line prefers the statement row, so look the rows up ourselves.
const SCRIPT = `
import gdb, os
out = []
last_rows = {}
def last_line_at(symtab, pc, line):
    key = symtab.fullname()
    rows = last_rows.get(key)
    if rows is None:
        rows = {}
        for e in symtab.linetable():
            rows[e.pc] = e.line
        last_rows[key] = rows
    return rows.get(pc, line)
def disasm(pc):
    try:
        text = gdb.execute("x/i 0x%x" % pc, to_string=True)
        # "   0x114d <sumfunc+20>:\\tmovsd ..." (C++ names hold colons: cut after ">:")
        rest = text.split(">:", 1)[1] if ">:" in text else (text.split(":", 1)[1] if ":" in text else "")
        return rest.strip().replace("\\t", " ")
    except Exception:
        return ""
lines_too = os.environ.get("STRIDE_LINES_TOO") == "1"
for a in open(os.environ["STRIDE_ADDRS"]).read().split():
    pc = int(a, 16)
    if not lines_too:
        out.append("?\\t0\\t" + disasm(pc))
        continue
    sal = gdb.find_pc_line(pc)
    if sal.symtab is None or sal.line == 0:
        out.append("?\\t0\\t" + disasm(pc))
    else:
        line = last_line_at(sal.symtab, sal.pc, sal.line)
        out.append("%s\\t%d\\t%s" % (sal.symtab.fullname(), line if line > 0 else sal.line, disasm(pc)))
with open(os.environ["STRIDE_LINES"], "w") as f:
    f.write("\\n".join(out) + "\\n")
`

/** Pure: one "file<TAB>line<TAB>instruction" row per address; "?" for an unknown file. */
export function parseGdbLines(text: string, count: number): SourceLocation[] {
  const rows = text.split('\n')
  const out: SourceLocation[] = []
  for (let i = 0; i < count; i++) {
    const [file, line, disasm] = (rows[i] ?? '?\t0').split('\t')
    const n = Number(line)
    const at = file && file !== '?' && n > 0 ? { file, line: n } : { file: null, line: null }
    out.push(disasm ? { ...at, disasm } : at)
  }
  return out
}

/**
 * Lines and instruction text per address; with `linesToo` false only the instruction text
 * (llvm-symbolizer gives the lines): gdb then skips the debug information entirely, detached
 * files included, which for libc's 4 MB of DWARF was most of a whole-program trace's naming.
 */
export async function gdbSourceLocations(path: string, linkAddresses: number[], linesToo = true): Promise<SourceLocation[]> {
  const dir = mkdtempSync(join(tmpdir(), 'stride-gdb-'))
  try {
    const addrs = join(dir, 'addrs')
    const lines = join(dir, 'lines')
    const script = join(dir, 'lines.py')
    writeFileSync(addrs, linkAddresses.map((a) => a.toString(16)).join('\n'))
    writeFileSync(script, SCRIPT)
    // Without lines, no debug information is read: not the detached files (a directory that
    // does not exist), and symbols only (no psymtab/DWARF reading: -readnever).
    const quick = linesToo ? [] : ['-readnever', '-ex', 'set debug-file-directory /nonexistent']
    await runTool('gdb', ['-batch', '-nx', ...quick, '-ex', `file ${path}`, '-x', script], undefined, { STRIDE_ADDRS: addrs, STRIDE_LINES: lines, STRIDE_LINES_TOO: linesToo ? '1' : '0' })
    const { readFileSync } = await import('node:fs')
    return parseGdbLines(readFileSync(lines, 'utf8'), linkAddresses.length)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Types, array dimensions and stack locations of a program's variables, from gdb in batch
 * mode: globals by name (type, size, element size, dims outermost first) and, per function,
 * the locals that live in memory at a fixed offset from the frame base (DW_OP_fbreg). GCC's
 * x86-64 frame base is DW_OP_call_frame_cfa, so a local's address is CFA + offset.
 * Locals held in registers never touch memory and are not listed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runTool } from './run-tool'

export interface TypeShape {
  type: string
  size: number
  elementSize: number
  dims: number[] | null
}

export interface FrameLocalInfo extends TypeShape {
  name: string
  offset: number
}

export interface ProgramVariables {
  globals: Record<string, TypeShape>
  /** Function name -> its in-memory locals. */
  frames: Record<string, FrameLocalInfo[]>
}

/** The Python gdb runs (kept answers are keyed by it: kept-layout.ts). */
export const GDB_VARIABLES_SCRIPT = `
import gdb, json, os, re
req = json.load(open(os.environ["STRIDE_REQ"]))
def shape(t):
    t0 = t
    dims = []
    s = t.strip_typedefs()
    while s.code == gdb.TYPE_CODE_ARRAY:
        lo, hi = s.range()
        dims.append(hi - lo + 1)
        s = s.target().strip_typedefs()
    return {"type": str(t0), "size": t0.sizeof, "elementSize": s.sizeof, "dims": dims or None}
out = {"globals": {}, "frames": {}}
for name in req["globals"]:
    try:
        sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
        if sym is not None and sym.type is not None:
            out["globals"][name] = shape(sym.type)
    except Exception:
        pass
pat = re.compile(r"Symbol (\\S+) is (.*?), length (\\d+)\\.", re.S)
for fn, addr in req["functions"]:
    try:
        text = gdb.execute("info scope *0x%x" % addr, to_string=True)
    except Exception:
        continue
    locals_ = []
    try:
        block = gdb.block_for_pc(addr)
    except Exception:
        block = None
    for m in pat.finditer(text):
        name, where, length = m.group(1), m.group(2), int(m.group(3))
        fb = re.search(r"DW_OP_fbreg (-?\\d+)", where)
        if not fb or "multi-location" in where:
            continue
        entry = {"name": name, "offset": int(fb.group(1)), "type": "", "size": length, "elementSize": length, "dims": None}
        try:
            sym = gdb.lookup_symbol(name, block)[0] if block is not None else None
            if sym is not None:
                entry.update(shape(sym.type))
                entry["size"] = length
        except Exception:
            pass
        locals_.append(entry)
    if locals_:
        out["frames"][fn] = locals_
with open(os.environ["STRIDE_OUT"], "w") as f:
    json.dump(out, f)
`

/** `functions`: name and link-time entry address. */
export async function readProgramVariables(program: string, globals: string[], functions: Array<[string, number]>): Promise<ProgramVariables> {
  const dir = mkdtempSync(join(tmpdir(), 'stride-vars-'))
  try {
    const req = join(dir, 'req.json')
    const out = join(dir, 'out.json')
    const script = join(dir, 'vars.py')
    writeFileSync(req, JSON.stringify({ globals, functions }))
    writeFileSync(script, GDB_VARIABLES_SCRIPT)
    await runTool('gdb', ['-batch', '-nx', '-ex', `file ${program}`, '-x', script], undefined, { STRIDE_REQ: req, STRIDE_OUT: out })
    return JSON.parse(readFileSync(out, 'utf8')) as ProgramVariables
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

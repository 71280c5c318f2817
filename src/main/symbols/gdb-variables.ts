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

/** A type's shape: array extents outermost first, down to the innermost element (one definition for every gdb script here). */
const SHAPE_PY = `
def shape(t):
    t0 = t
    dims = []
    s = t.strip_typedefs()
    while s.code == gdb.TYPE_CODE_ARRAY:
        lo, hi = s.range()
        dims.append(hi - lo + 1)
        s = s.target().strip_typedefs()
    return {"type": str(t0), "size": t0.sizeof, "elementSize": s.sizeof, "dims": dims or None}
`

/** The Python gdb runs (kept answers are keyed by it: kept-layout.ts). */
export const GDB_VARIABLES_SCRIPT = `
import gdb, json, os, re
req = json.load(open(os.environ["STRIDE_REQ"]))
${SHAPE_PY}
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

/** What a heap block's pointer says of it: its declared type and the shape of what it points to. */
export interface PointeeShape {
  /** The pointer's type as the debug information spells it, e.g. `double (*)[56]`. */
  pointer: string
  pointee: TypeShape
}

/**
 * For each (name, link-time pc): the type of the pointer `name` as seen from the code at pc
 * (its lexical block, then the enclosing ones, then the program's globals), when it is a
 * pointer to a sized type. `name` may be a member path (`s->buf`, `ctx.table`): each member is
 * looked up in the struct the path reaches. Null where the name is not a typed pointer.
 */
export const GDB_POINTEES_SCRIPT = `
import gdb, json, os, re
req = json.load(open(os.environ["STRIDE_REQ"]))
${SHAPE_PY}
def lookup(path, pc):
    parts = re.split(r"\\s*(?:\\.|->)\\s*", path.strip())
    try:
        block = gdb.block_for_pc(pc)
    except Exception:
        block = None
    sym = gdb.lookup_symbol(parts[0], block)[0] if block is not None else None
    if sym is None:
        sym = gdb.lookup_global_symbol(parts[0]) or gdb.lookup_static_symbol(parts[0])
    if sym is None or sym.type is None:
        return None
    t = sym.type
    for member in parts[1:]:
        s = t.strip_typedefs()
        if s.code == gdb.TYPE_CODE_PTR:
            s = s.target().strip_typedefs()
        if s.code not in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
            return None
        field = next((f for f in s.fields() if f.name == member), None)
        if field is None:
            return None
        t = field.type
    s = t.strip_typedefs()
    if s.code != gdb.TYPE_CODE_PTR:
        return None
    target = s.target()
    if target.strip_typedefs().code in (gdb.TYPE_CODE_VOID, gdb.TYPE_CODE_FUNC) or target.sizeof <= 0:
        return None
    return {"pointer": str(t), "pointee": shape(target)}
out = []
for name, pc in req["pointers"]:
    try:
        out.append(lookup(name, pc) if re.fullmatch(r"[A-Za-z_]\\w*(\\s*(\\.|->)\\s*[A-Za-z_]\\w*)*", name) else None)
    except Exception:
        out.append(None)
with open(os.environ["STRIDE_OUT"], "w") as f:
    json.dump(out, f)
`

/** What the pointer says for each asked (name, link-time pc), in order; one gdb run for all. */
export async function readPointeeShapes(program: string, pointers: Array<{ name: string; pc: number }>): Promise<Array<PointeeShape | null>> {
  if (pointers.length === 0) return []
  const dir = mkdtempSync(join(tmpdir(), 'stride-pointees-'))
  try {
    const req = join(dir, 'req.json')
    const out = join(dir, 'out.json')
    const script = join(dir, 'pointees.py')
    writeFileSync(req, JSON.stringify({ pointers: pointers.map((p) => [p.name, p.pc]) }))
    writeFileSync(script, GDB_POINTEES_SCRIPT)
    await runTool('gdb', ['-batch', '-nx', '-ex', `file ${program}`, '-x', script], undefined, { STRIDE_REQ: req, STRIDE_OUT: out })
    const answer = JSON.parse(readFileSync(out, 'utf8')) as unknown
    if (!Array.isArray(answer) || answer.length !== pointers.length) return pointers.map(() => null)
    return answer.map((a) => (isPointeeShape(a) ? a : null))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Whether a value has PointeeShape's form (gdb's answer, or a kept one: kept-layout.ts). */
export function isPointeeShape(v: unknown): v is PointeeShape {
  if (typeof v !== 'object' || v === null) return false
  const { pointer, pointee } = v as Partial<PointeeShape>
  if (typeof pointer !== 'string' || typeof pointee !== 'object' || pointee === null) return false
  const { size, elementSize, dims } = pointee
  return Number.isInteger(size) && size > 0 && Number.isInteger(elementSize) && elementSize > 0 && (dims === null || (Array.isArray(dims) && dims.every((d) => Number.isInteger(d) && d > 0)))
}

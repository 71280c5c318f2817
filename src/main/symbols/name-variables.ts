/**
 * Gives the correlator's variables their names after the trace: heap contexts after the
 * allocating source line and what its result is assigned to (`particles`, or
 * `heap@list.c:42`), stack locals after themselves (qualified by function when two
 * functions share a name).
 */
import { readFileSync } from 'node:fs'
import { basename, isAbsolute } from 'node:path'
import { sourceLocations } from './addr2line'
import { inlineChains } from './inline-chain'
import { readElf } from './elf-reader'
import { isSystemObject } from './system-objects'

export { isSystemObject }
import type { LoadedModule } from '../tracing/proc-maps'
import type { VariableRecord } from '../correlate/correlator'
import type { DimsSource } from '../../shared/domain'
import type { PointeeShape } from './gdb-variables'
import { keptPointeeShapes } from './kept-layout'
import { heapShape, type WalkStride } from './heap-dims'
import { assignedTargets, cppOwnerName, parseLine } from '../correlate/source-expressions'

export interface NamedVariable extends VariableRecord {
  /** Heap: the allocating line (file:line) or module+offset; stack: the function. */
  allocSite: string | null
  module: string | null
  /** Where dims came from: globals' and locals' array types; a heap block's, heapShapes. */
  dimsFrom: DimsSource | null
  /** Heap: the pointer the block was named after, and the code (object, link-time pc) that assigns it. */
  pointer: { name: string; module: string; pc: number } | null
}

function sourceLine(file: string, line: number, cache: Map<string, string[] | null>): string | null {
  if (!isAbsolute(file)) return null // relative to a library's build tree elsewhere (glibc's ./stdlib/...)
  if (!cache.has(file)) {
    try {
      cache.set(file, readFileSync(file, 'utf8').split('\n'))
    } catch {
      cache.set(file, null)
    }
  }
  return cache.get(file)?.[line - 1] ?? null
}

/** Library code instantiated into the program: templates and inline functions of system headers. */
const SYSTEM_SOURCE = /^\/usr\/(?:local\/)?include\/|^\/usr\/lib\/gcc\//
const CXX_SOURCE = /\.(?:cc|cpp|cxx|c\+\+|C|hpp|hh|hxx)$/


/**
 * What an allocating line names: the call's target among the line's (`assigned`, in call
 * order, with the rank of this call among the line's calls seen allocating), posix_memalign's
 * `&p`, a declaration's name (`double *A = alloc(...)`), or the variable a declaration macro
 * declares (PolyBench's `POLYBENCH_2D_ARRAY_DECL(A, ...)`). Null when the line names nothing, or
 * holds several allocating calls and which one this is cannot be told.
 */
export function allocationTarget(text: string, assigned: string[], rank: { index: number; of: number } | null = null): string | null {
  if (assigned.length > 1) return rank && rank.of === assigned.length ? (assigned[rank.index] ?? null) : null
  if (assigned.length === 1) return assigned[0]!
  const code = text.replace(/\/\/.*$/, '')
  const out = /posix_memalign\s*\(\s*&\s*([A-Za-z_]\w*)/.exec(code)
  if (out) return out[1]!
  const declared = /([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*=(?!=)/.exec(code)
  if (declared) return declared[1]!
  const macro = /^\s*[A-Z][A-Z0-9_]*(?:DECL|ALLOC|ARRAY|NEW)[A-Z0-9_]*\s*\(\s*([A-Za-z_]\w*)\s*[,)]/.exec(code)
  return macro ? macro[1]! : null
}

/**
 * Whether the function containing line `from` returns `name` (an allocation helper handing
 * the block to its caller): a `return name` before the function's closing brace.
 */
export function returnsName(lines: string[], from: number, name: string): boolean {
  // The name is source text (`*rewrite`, `p->buf`): matched as written, not as a pattern.
  const literal = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const ret = new RegExp(`\\breturn\\s*(\\([^)]*\\)\\s*)?\\(?\\s*${literal}(?![\\w])`)
  for (let i = from; i < Math.min(lines.length, from + 80); i++) {
    const l = lines[i]!
    if (ret.test(l)) return true
    if (/^\}/.test(l)) return false
  }
  return false
}

interface FrameLocation {
  module: LoadedModule
  link: number
  file: string | null
  line: number | null
}

/**
 * The source levels of each stack frame (return address - 1), innermost first: an inlined
 * helper's line, then its caller's (inlined callers are levels of one frame, not frames of
 * their own). One symbolizer run per object for all its frames; frames in system libraries
 * get no lines (blocks are never named after libc's or libstdc++'s code, and with detached
 * debug information installed their lookups cost a second and more).
 */
async function locateAll(pcs: number[], modules: LoadedModule[]): Promise<Map<number, FrameLocation[]>> {
  const out = new Map<number, FrameLocation[]>()
  const byModule = new Map<LoadedModule, number[]>()
  for (const pc of new Set(pcs)) {
    const module = modules.find((m) => pc >= m.start && pc < m.end)
    if (!module) out.set(pc, [])
    else if (byModule.has(module)) byModule.get(module)!.push(pc)
    else byModule.set(module, [pc])
  }
  await Promise.all(
    [...byModule].map(async ([module, list]) => {
      let elf
      try {
        elf = await readElf(module.path)
      } catch {
        return // an unreadable object: its frames are skipped
      }
      const links = list.map((pc) => pc - (elf.relocatable ? module.base : 0))
      const bare = (k: number): FrameLocation[] => [{ module, link: links[k]!, file: null, line: null }]
      if (!elf.hasDebugInfo || isSystemObject(module.path)) {
        list.forEach((pc, k) => out.set(pc, bare(k)))
        return
      }
      const chains = await inlineChains(module.path, links).catch(() => [] as Awaited<ReturnType<typeof inlineChains>>)
      const missing = list.map((_, k) => k).filter((k) => !(chains[k]?.length ?? 0))
      const located = missing.length > 0 ? await sourceLocations(module.path, missing.map((k) => links[k]!)).catch(() => []) : []
      const locatedAt = new Map(missing.map((k, i) => [k, located[i]]))
      list.forEach((pc, k) => {
        const chain = chains[k]
        if (chain && chain.length > 0) out.set(pc, chain.map((l) => ({ module, link: links[k]!, file: l.file, line: l.line })))
        else {
          const loc = locatedAt.get(k)
          out.set(pc, [{ module, link: links[k]!, file: loc?.file ?? null, line: loc?.line ?? null }])
        }
      })
    })
  )
  return out
}

/**
 * Names a heap block after the program's own code: the first frame of its allocation context
 * outside the system libraries (strdup's and operator new's callers, not libc or libstdc++),
 * by what that line assigns; through allocation helpers that return the block (xmalloc,
 * alloc2d) up to the caller that keeps it; `heap@file:line` where no line assigns a name.
 */
/** A line that returns a value (its allocation is the caller's object). */
const RETURN_LINE = /^\s*return\b[^;]*;/

export async function nameVariables(variables: VariableRecord[], modules: LoadedModule[]): Promise<NamedVariable[]> {
  const files = new Map<string, string[] | null>()
  const named: NamedVariable[] = variables.map((v) => ({ ...v, allocSite: v.kind === 'stack' ? v.function : null, module: null, dimsFrom: v.dims ? 'type' : null, pointer: null }))
  // Every heap context's frames first: a line with several allocating calls
  // (`double (*A)[N] = malloc(...), (*B)[N] = malloc(...)`) tells its blocks apart by the rank
  // of each call site among the line's sites (calls run in order: declarators are sequenced).
  const framesOf = new Map<NamedVariable, FrameLocation[]>()
  const sitesAt = new Map<string, Set<number>>()
  const heapContexts = named.filter((v) => v.kind === 'heap' && v.context?.length)
  // Return addresses point after the call: the call's line is at pc - 1.
  const located = await locateAll(heapContexts.flatMap((v) => v.context!.map((pc) => pc - 1)), modules)
  for (const v of heapContexts) {
    const frames = v.context!.flatMap((pc) => located.get(pc - 1) ?? [])
    framesOf.set(v, frames)
    for (const f of frames) if (f.file && f.line) sitesAt.set(`${f.file}:${f.line}`, (sitesAt.get(`${f.file}:${f.line}`) ?? new Set()).add(f.link))
  }
  const rankAt = (f: FrameLocation) => {
    const sites = [...(sitesAt.get(`${f.file}:${f.line}`) ?? [])].sort((a, b) => a - b)
    return { index: sites.indexOf(f.link), of: sites.length }
  }
  for (const [v, frames] of framesOf) {
    // Library code compiled into the program (std:: templates from system headers) is not
    // the program's own line either.
    const own = frames.filter((f) => !isSystemObject(f.module.path) && !(f.file && SYSTEM_SOURCE.test(f.file)))
    const first = own[0] ?? frames[0]
    if (!first) continue
    v.module = first.module.path
    if (!first.file || !first.line) {
      v.allocSite = `${basename(first.module.path)}+0x${first.link.toString(16)}`
      v.name = `heap@${v.allocSite}`
      continue
    }
    v.allocSite = `${first.file}:${first.line}`
    let name: string | null = null
    for (const f of own) {
      if (!f.file || !f.line) break
      const text = sourceLine(f.file, f.line, files)
      // `return malloc(n);`, C++'s `return s;` (a copy of a member string): the line hands the
      // block to its caller, whose line names it.
      if (text && RETURN_LINE.test(text)) continue
      const root = text ? await parseLine(text) : null
      // C++: the object the line allocates for (std::vector<T> v(n), m[k] = x, p = new T)
      // comes first; the C rules would take a loop counter's `k = 0`.
      const cxx = text && CXX_SOURCE.test(f.file) ? cppOwnerName(text) : null
      const target = text ? cxx ?? allocationTarget(text, root ? assignedTargets(root) : [], rankAt(f)) : null
      if (!target) break
      name = target
      // The site is the line that keeps the block (the caller of a helper), not the helper's.
      v.allocSite = `${f.file}:${f.line}`
      v.pointer = { name: target, module: f.module.path, pc: f.link }
      // A helper that returns what it allocated: the caller's assignment names the block.
      const lines = files.get(f.file)
      if (!lines || !returnsName(lines, f.line, target)) break
    }
    v.name = name ?? `heap@${basename(first.file)}:${first.line}`
  }
  // Names must tell variables apart: qualify repeated stack names, number repeated heap names.
  const seen = new Map<string, number>()
  for (const v of named) seen.set(v.name, (seen.get(v.name) ?? 0) + 1)
  const counters = new Map<string, number>()
  for (const v of named) {
    if ((seen.get(v.name) ?? 0) < 2 || v.kind === 'unknown') continue
    if (v.kind === 'stack' && v.function) v.name = `${v.function}.${v.name}`
    else {
      const n = (counters.get(v.name) ?? 0) + 1
      counters.set(v.name, n)
      if (n > 1) v.name = `${v.name}#${n}`
    }
  }
  return named
}

/**
 * The types of the pointers heap blocks are assigned to, by variable id: each named block's
 * pointer looked up by gdb in its object (one run per object, only the program's own objects
 * with debug information; kept per build, kept-layout.ts). A failed lookup leaves the block
 * without one.
 */
export async function heapPointees(named: readonly NamedVariable[]): Promise<Map<number, PointeeShape>> {
  const byModule = new Map<string, NamedVariable[]>()
  for (const v of named) if (v.kind === 'heap' && v.pointer && !isSystemObject(v.pointer.module)) byModule.set(v.pointer.module, [...(byModule.get(v.pointer.module) ?? []), v])
  const pointees = new Map<number, PointeeShape>()
  await Promise.all(
    [...byModule].map(async ([module, blocks]) => {
      const elf = await readElf(module).catch(() => null)
      if (!elf?.hasDebugInfo) return
      const shapes = await keptPointeeShapes(module, blocks.map((b) => ({ name: b.pointer!.name, pc: b.pointer!.pc }))).catch(() => blocks.map(() => null))
      blocks.forEach((b, i) => shapes[i] && pointees.set(b.id, shapes[i]!))
    })
  )
  return pointees
}

/**
 * Gives heap blocks their type and dimensions (heap-dims.ts) from their pointers' types and,
 * where those give less than two dimensions, the strides their references walked them with
 * (`stridesOf`: the RSD strides of the points that walked it).
 */
export function shapeHeapBlocks(named: NamedVariable[], pointees: ReadonlyMap<number, PointeeShape>, stridesOf: (variable: number) => readonly WalkStride[]): void {
  for (const v of named) {
    if (v.kind !== 'heap' || v.size === null || v.size <= 0) continue
    const shape = heapShape(v.size, pointees.get(v.id) ?? null, stridesOf(v.id))
    v.type = shape.type
    v.elementSize = shape.elementSize
    v.dims = shape.dims
    v.dimsFrom = shape.dimsFrom
  }
}

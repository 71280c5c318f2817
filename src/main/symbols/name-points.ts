/**
 * Names every access point after a trace: file:line and instruction (gdb on the point's
 * object), function (the object's symbol table, as Cachegrind names functions), module, the
 * data structure most of its accesses touched (from the correlator; without one, the global
 * its first access fell in), its source expression (`B[j][i]`) and a METRIC-style id
 * (section 10.1.1) stable across sessions of one build, `Var_Kind_LINE@function+0xOFFSET`
 * (shared/reference-names.ts): made of the point's own facts only, never of its rank among
 * the trace's points.
 */
import { readFileSync } from 'node:fs'
import { basename, isAbsolute } from 'node:path'
import { collectAccesses, matchExpressions, parseLine, type LinePoint } from '../correlate/source-expressions'
import { compilerAccess } from './compiler-accesses'
import type { PointNames, PointRecord } from '../store/session-writer'
import type { LoadedModule } from '../tracing/proc-maps'
import { sourceLocations } from './addr2line'
import { cachedSourceLocations } from './symbol-cache'
import { inSystemFolder } from './system-objects'
import { findSymbol } from './elf-parse'
import { readElf, type ElfInfo } from './elf-reader'
import { ACCESS_KINDS } from '../../shared/domain'
import { referenceName } from '../../shared/reference-names'

function moduleOf(modules: LoadedModule[], address: number): LoadedModule | null {
  for (const m of modules) if (address >= m.start && address < m.end) return m
  return null
}

/** Point index -> the name of the variable it touched most (null: unknown). */
export type PointVariables = (point: number) => string | null

/**
 * The points whose instruction lives in one object, with that object's ELF, their link
 * addresses and their functions (the object's symbol containing each, as Cachegrind names them).
 */
export interface ModulePoints {
  module: LoadedModule
  elf: ElfInfo
  points: PointRecord[]
  links: number[]
  functions: Array<string | null>
  /** Each point's offset in its function's symbol (null: no symbol). */
  offsets: Array<number | null>
}

/**
 * Groups the points by the object their instruction lives in and reads each object's ELF (in
 * parallel); objects that cannot be read are left out (their points keep the address only).
 */
export async function pointModules(points: PointRecord[], modules: LoadedModule[], program: ElfInfo): Promise<ModulePoints[]> {
  const groups = new Map<LoadedModule, PointRecord[]>()
  for (const p of points) {
    const m = moduleOf(modules, p.pc)
    if (!m) continue
    const list = groups.get(m) ?? []
    list.push(p)
    groups.set(m, list)
  }
  const read = await Promise.all(
    [...groups].map(async ([module, list]) => {
      const elf = await moduleElf(module, program)
      if (!elf) return null // not an ELF we can read (e.g. a deleted file)
      const links = list.map((p) => linkAddress(elf, module, p.pc))
      const symbols = links.map((a) => findSymbol(elf.functions, a))
      return { module, elf, points: list, links, functions: symbols.map((s) => s?.name ?? null), offsets: symbols.map((s, i) => (s ? links[i]! - s.start : null)) }
    })
  )
  return read.filter((g): g is ModulePoints => g !== null)
}

/** The object's ELF (the program's as already read), or null when it cannot be read. */
const moduleElf = (module: LoadedModule, program: ElfInfo): Promise<ElfInfo | null> =>
  module.path === program.path ? Promise.resolve(program) : readElf(module.path).catch(() => null)
/** A runtime pc as the object's own (link-time) address. */
const linkAddress = (elf: ElfInfo, module: LoadedModule, pc: number): number => pc - (elf.relocatable ? module.base : 0)
const functionAt = (elf: ElfInfo, link: number): string | null => findSymbol(elf.functions, link)?.name ?? null

/**
 * `variablesOf` may still be coming (the data structures are named beside the points' lines:
 * both wait on child processes); it is awaited once the lines are in.
 */
export async function namePoints(points: PointRecord[], modules: LoadedModule[], program: ElfInfo, variablesOf: PointVariables | Promise<PointVariables> | null = null, grouped?: ModulePoints[]): Promise<PointNames[]> {
  const names: PointNames[] = points.map((p) => ({ idx: p.idx, refId: '', file: null, line: null, function: null, module: null, variable: null, sourceExpr: null, disasm: null }))
  for (const p of points) names[p.idx]!.module = moduleOf(modules, p.pc)?.path ?? null
  const groups = grouped ?? (await pointModules(points, modules, program))
  // Where each point's instruction is, for its name: its function and offset there, or its object's own address.
  const sites = new Map<number, { offset: number | null; link: number }>()
  for (const g of groups) g.points.forEach((p, i) => sites.set(p.idx, { offset: g.offsets[i]!, link: g.links[i]! }))
  // Each object's lines and instructions (gdb on it), all objects at once.
  await Promise.all(
    groups.map(async ({ module, elf, points: list, links, functions }) => {
      // System libraries' names are kept across traces (they change only with an upgrade).
      const locate = inSystemFolder(module.path) ? cachedSourceLocations : sourceLocations
      const locations = elf.hasDebugInfo ? await locate(module.path, links).catch(() => []) : []
      list.forEach((p, i) => {
        const n = names[p.idx]!
        n.function = functions[i]!
        n.file = locations[i]?.file ?? null
        n.line = locations[i]?.line ?? null
        n.disasm = locations[i]?.disasm ?? null
      })
    })
  )
  const pointVariables = await variablesOf
  if (pointVariables) {
    for (const p of points) names[p.idx]!.variable = pointVariables(p.idx)
  } else {
    // No correlator: the program global the point's first access fell in.
    const exe = modules.find((m) => m.path === program.path)
    const dataOffset = exe && program.relocatable ? exe.base : 0
    for (const p of points) names[p.idx]!.variable = exe ? (findSymbol(program.data, p.firstAddress - dataOffset)?.name ?? null) : null
  }
  await addSourceExpressions(points, names)
  const taken = new Set<string>()
  // In address order, so that the (never seen) case of two points with one name is settled the same way each time.
  for (const p of [...points].sort((a, b) => a.pc - b.pc || a.kind - b.kind)) {
    const n = names[p.idx]!
    const site = sites.get(p.idx)
    const name = referenceName({
      variable: n.variable,
      kind: ACCESS_KINDS[p.kind] ?? 'read',
      line: n.line,
      function: n.function,
      offset: site?.offset ?? null,
      object: n.module !== null ? basename(n.module) : null,
      inProgram: n.module === program.path,
      link: site?.link ?? null,
      pc: p.pc
    })
    let unique = name
    for (let k = 2; taken.has(unique); k++) unique = `${name}~${k}`
    taken.add(unique)
    n.refId = unique
  }
  return names
}


/** Fills sourceExpr per source line: matched expressions, else the plain line. */
async function addSourceExpressions(points: PointRecord[], names: PointNames[]): Promise<void> {
  const byLine = new Map<string, PointRecord[]>()
  for (const p of points) {
    const n = names[p.idx]!
    // A path relative to a library's build tree elsewhere (glibc's ./string/...) is not read:
    // most of a whole-program trace's points, left out before their lines are grouped.
    if (!n.file || !n.line || !isAbsolute(n.file)) continue
    const key = `${n.file}\0${n.line}`
    const list = byLine.get(key) ?? []
    list.push(p)
    byLine.set(key, list)
  }
  const files = new Map<string, string[] | null>()
  for (const [key, list] of byLine) {
    const [file, lineText] = key.split('\0') as [string, string]
    if (!files.has(file)) {
      try {
        files.set(file, readFileSync(file, 'utf8').split('\n'))
      } catch {
        files.set(file, null)
      }
    }
    const text = files.get(file)?.[Number(lineText) - 1]
    if (text === undefined) continue
    const root = await parseLine(text)
    // The compiler's own accesses (return addresses, spills, constants) take no expression.
    const generated = new Map(list.map((p) => [p.idx, compilerAccess(names[p.idx]!.disasm, names[p.idx]!.variable)]))
    const linePoints: LinePoint[] = list
      .filter((p) => generated.get(p.idx) === null)
      .sort((a, b) => a.pc - b.pc)
      .map((p) => ({ key: p.idx, kind: ACCESS_KINDS[p.kind] ?? 'read', variable: names[p.idx]!.variable }))
    const matched = root ? matchExpressions(linePoints, collectAccesses(root)) : new Map<number, string>()
    for (const p of list) names[p.idx]!.sourceExpr = generated.get(p.idx) ?? matched.get(p.idx) ?? text.trim()
  }
}

/**
 * Names every access point after a trace: file:line (addr2line on the point's object),
 * function (the object's symbol table, as Cachegrind names functions), module, the global
 * variable its first access fell in, and a METRIC-style id `Var_Kind_N` (section 10.1.1),
 * N numbering points in address order so ids are stable for a binary.
 */
import type { PointNames, PointRecord } from '../store/session-writer'
import type { LoadedModule } from '../tracing/proc-maps'
import { sourceLocations } from './addr2line'
import { findSymbol } from './elf-parse'
import { readElf, type ElfInfo } from './elf-reader'

const KIND_NAMES = ['Read', 'Write', 'Modify'] as const

function moduleOf(modules: LoadedModule[], address: number): LoadedModule | null {
  for (const m of modules) if (address >= m.start && address < m.end) return m
  return null
}

export async function namePoints(points: PointRecord[], modules: LoadedModule[], program: ElfInfo): Promise<PointNames[]> {
  const names: PointNames[] = points.map((p) => ({ idx: p.idx, refId: '', file: null, line: null, function: null, module: null, variable: null }))
  // Group points by the object their instruction lives in.
  const groups = new Map<LoadedModule, PointRecord[]>()
  for (const p of points) {
    const m = moduleOf(modules, p.pc)
    if (!m) continue
    names[p.idx]!.module = m.path
    const list = groups.get(m) ?? []
    list.push(p)
    groups.set(m, list)
  }
  for (const [module, list] of groups) {
    let elf: ElfInfo
    try {
      elf = module.path === program.path ? program : await readElf(module.path)
    } catch {
      continue // not an ELF we can read (e.g. a deleted file): keep the address only
    }
    const offset = elf.relocatable ? module.base : 0
    const links = list.map((p) => p.pc - offset)
    const locations = elf.hasDebugInfo ? await sourceLocations(module.path, links).catch(() => []) : []
    list.forEach((p, i) => {
      const n = names[p.idx]!
      n.function = findSymbol(elf.functions, links[i]!)?.name ?? null
      n.file = locations[i]?.file ?? null
      n.line = locations[i]?.line ?? null
    })
  }
  // Globals of the program (issue: heap/stack naming lives with the correlation work).
  const exe = modules.find((m) => m.path === program.path)
  const dataOffset = exe && program.relocatable ? exe.base : 0
  for (const p of points) {
    names[p.idx]!.variable = exe ? (findSymbol(program.data, p.firstAddress - dataOffset)?.name ?? null) : null
  }
  const order = [...points].sort((a, b) => a.pc - b.pc || a.kind - b.kind)
  order.forEach((p, rank) => {
    const n = names[p.idx]!
    n.refId = `${n.variable ?? 'unknown'}_${KIND_NAMES[p.kind] ?? 'Access'}_${rank}`
  })
  return names
}

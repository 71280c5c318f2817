/**
 * The instructions of a source line, as KCachegrind's assembly view lists them: each memory
 * instruction the trace saw on the line (a reference is one instruction), in address order,
 * with its disassembly, its reference name and its counts at every level. Instructions that
 * touch no memory are not traced, so they are not listed. Pure.
 */
import type { ReferenceStats } from '../../shared/domain'

export interface InstructionRow {
  pc: string
  /** `function+0x1a4` read off the reference name, or the pc. */
  place: string
  disasm: string | null
  reference: string
  kind: ReferenceStats['kind']
  sourceExpr: string | null
  accesses: number
  /** Per level, in the order asked: misses and miss ratio (null where the level saw none). */
  levels: Array<{ level: string; misses: number; ratio: number | null }>
}

const pcValue = (pc: string) => {
  try {
    return BigInt(pc.startsWith('0x') ? pc : `0x${pc}`)
  } catch {
    return 0n
  }
}

export function computeLineInstructions(references: readonly ReferenceStats[], levels: readonly string[]): InstructionRow[] {
  return [...references]
    .sort((a, b) => {
      const d = pcValue(a.pc) - pcValue(b.pc)
      return d < 0n ? -1 : d > 0n ? 1 : a.id.localeCompare(b.id)
    })
    .map((r) => ({
      pc: r.pc,
      place: /@([^@]+\+0x[0-9a-f]+)$/i.exec(r.id)?.[1] ?? r.pc,
      disasm: r.disasm ?? null,
      reference: r.id,
      kind: r.kind,
      sourceExpr: r.sourceExpr ?? null,
      accesses: r.reads + r.writes,
      levels: levels.map((level) => {
        const s = r.levels[level]
        const total = s ? s.hits + s.misses : 0
        return { level, misses: s?.misses ?? 0, ratio: s && total > 0 ? s.misses / total : null }
      })
    }))
}

/**
 * Reference names (METRIC section 10.1.1's `Var_Kind_N`), stable across sessions of one build.
 *
 * A name is `VAR_KIND_LINE@SITE`: the data structure the point touched most (`unknown` when
 * none), its kind (Read, Write, Modify), its source line (left out when unknown), and where
 * its instruction is: `FUNCTION+0xOFFSET` (the offset of the instruction in its function's
 * symbol; a function of another object than the program is prefixed with that object's file
 * name, `libc.so.6:memcpy+0x1a`), else `OBJECT+0xLINK` (the instruction's link-time address in
 * an object without a symbol for it), else `0xPC` (the runtime address: no object).
 *
 *   b_Read_42@do_mult+0x4f      unknown_Write@libc.so.6:_IO_fwrite+0x9c
 *
 * Everything in it is the point's own, so the same instruction of the same build has the same
 * name in every trace that contains it, whatever other points that trace has (whole program or
 * one function, any input, any thread timing). The names numbered by discovery or address
 * rank before this (`A_Read_0`) stay in the sessions that stored them.
 *
 * The part after the data structure (`Read@do_mult+0x4f`) is the reference's *site*: what
 * Compare matches two sessions' references by, so a point whose data structure is named
 * differently in two traces (a local its function-scoped trace did not see) still matches.
 */
import type { AccessKind } from './domain'

const KIND_NAMES: Record<AccessKind, string> = { read: 'Read', write: 'Write', modify: 'Modify' }

/** What a reference's name is made of: all of it the point's own. */
export interface ReferenceNameParts {
  /** The data structure it touched most, or null (named `unknown`). */
  variable: string | null
  kind: AccessKind
  line: number | null
  /** The symbol its instruction is in, or null. */
  function: string | null
  /** The instruction's offset in that symbol (bytes). */
  offset: number | null
  /** File name of the object holding the instruction, or null when it is in none. */
  object: string | null
  /** Whether that object is the traced program (its functions go unprefixed). */
  inProgram: boolean
  /** The instruction's link-time address in its object. */
  link: number | null
  /** Its runtime address. */
  pc: number
}

const hex = (n: number) => `0x${n.toString(16)}`

/** Where the instruction is, as the name says it: `f+0x4f`, `libc.so.6:f+0x4f`, `libx.so+0x1234`, `0x401136`. */
function siteOf(p: ReferenceNameParts): string {
  if (p.function !== null && p.offset !== null) return `${p.object !== null && !p.inProgram ? `${p.object}:` : ''}${p.function}+${hex(p.offset)}`
  if (p.object !== null && p.link !== null) return `${p.object}+${hex(p.link)}`
  return hex(p.pc)
}

/** `b_Read_42@do_mult+0x4f`: see the module comment. */
export function referenceName(p: ReferenceNameParts): string {
  return `${p.variable ?? 'unknown'}_${KIND_NAMES[p.kind]}${p.line !== null && p.line > 0 ? `_${p.line}` : ''}@${siteOf(p)}`
}

// The kind is the first `_Read`/`_Write`/`_Modify` followed by an optional line and the `@`
// (data structure names may hold `_`, `@` and `:` themselves: `heap@mult.c:12`, `LIB:g`).
const NAMED = /_(Read|Write|Modify)(?:_\d+)?@(.+)$/

/**
 * A reference's site, `Read@do_mult+0x4f`: the same for the same instruction of the same build
 * in any session (its data structure and line left out). A name of the older form (`A_Read_0`,
 * a rank within one session) is its own site: it matches only the same name.
 */
export function referenceSite(id: string): string {
  const m = NAMED.exec(id)
  return m ? `${m[1]}@${m[2]}` : id
}

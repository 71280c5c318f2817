/**
 * What causes a group of references' misses, from the three Cs the advisor computed
 * (`MissClasses`): the one rule both the Advisor and the evictor panel use to call a cycle of
 * evictors a conflict, so they never disagree. A cycle says who replaces whom; only the set
 * mapping makes it a conflict (a fully associative cache of the same size would have hit
 * most of its misses). Pure.
 */
import type { MissClasses } from './domain'

/** A group is a conflict when at least this share of its misses are conflict misses. */
export const CONFLICT_SHARE = 0.5

export type MissCause = 'conflict' | 'capacity' | 'first-touch' | 'mixed'

export interface GroupCause {
  cause: MissCause
  conflict: number
  capacity: number
  compulsory: number
}

/** The dominant cause of the references' misses (a reference the classes do not list had none), or null: no classes, or no misses. */
export function groupCause(references: string[], classes: MissClasses | null | undefined): GroupCause | null {
  if (!classes) return null
  let conflict = 0
  let capacity = 0
  let compulsory = 0
  for (const id of references) {
    const c = classes.byReference[id]
    if (!c) continue
    conflict += c.conflict
    capacity += c.capacity
    compulsory += c.compulsory
  }
  const cause = causeOf({ conflict, capacity, compulsory })
  return cause === null ? null : { cause, conflict, capacity, compulsory }
}

/** The class holding at least CONFLICT_SHARE of the misses ('mixed' when none does; null: no misses). */
export function causeOf(c: { conflict: number; capacity: number; compulsory: number }): MissCause | null {
  const all = c.conflict + c.capacity + c.compulsory
  if (all === 0) return null
  if (c.conflict >= CONFLICT_SHARE * all) return 'conflict'
  if (c.capacity >= CONFLICT_SHARE * all) return 'capacity'
  if (c.compulsory >= CONFLICT_SHARE * all) return 'first-touch'
  return 'mixed'
}

/**
 * Checked rows: a query's columns described once (`{ run: 'int', config: 'text' }`), checked
 * on every row read, and typed from the same description. A session file is user input (it
 * may be damaged, or written by another program), so a column holding the wrong kind of
 * value is one clear error naming the column, not a NaN or a crash three modules later.
 */
import type { Statement } from 'better-sqlite3'
import { StrideError } from '../../shared/errors'

type BaseKind = 'int' | 'number' | 'text' | 'blob'
export type ColumnKind = BaseKind | `${BaseKind}?`
export type RowShape = Record<string, ColumnKind>

type ValueOf<K extends ColumnKind> = K extends `${infer B extends BaseKind}?` ? ValueOf<B> | null : K extends 'int' | 'number' ? number : K extends 'text' ? string : Uint8Array
export type RowOf<S extends RowShape> = { -readonly [C in keyof S]: ValueOf<S[C]> }

const CHECKS: Record<BaseKind, { what: string; ok(v: unknown): boolean }> = {
  int: { what: 'a whole number', ok: (v) => typeof v === 'number' && Number.isSafeInteger(v) },
  number: { what: 'a number', ok: (v) => typeof v === 'number' },
  text: { what: 'text', ok: (v) => typeof v === 'string' },
  blob: { what: 'bytes', ok: (v) => v instanceof Uint8Array }
}

function found(v: unknown): string {
  if (v === undefined) return 'no such column'
  if (v === null) return 'NULL'
  if (typeof v === 'string') return `text "${v.length > 24 ? `${v.slice(0, 24)}…` : v}"`
  if (v instanceof Uint8Array) return `${v.length} bytes`
  return `${typeof v} ${String(v)}`
}

/** What a statement reads from, for the message (the first table named after FROM). */
function sourceOf(stmt: Statement): string {
  return /\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)/i.exec(stmt.source)?.[1] ?? 'a query'
}

/**
 * One column's check, its kind resolved once per statement, not once per cell: a point
 * table's or a run's thousands of rows x a dozen columns made the per-cell parsing of the
 * kind most of a cold read's checking.
 */
type CellCheck = (v: unknown, stmt: Statement) => void

function cellCheck(column: string, kind: ColumnKind): CellCheck {
  const optional = kind.endsWith('?')
  const check = CHECKS[(optional ? kind.slice(0, -1) : kind) as BaseKind]
  const ok = check.ok
  return (v, stmt) => {
    if (v === null && optional) return
    if (!ok(v))
      throw new StrideError(
        `The session file has an unexpected value in ${sourceOf(stmt)}.${column} (expected ${check.what}${optional ? ' or NULL' : ''}, found ${found(v)}); it may be damaged or written by another program.`,
        'malformed-session'
      )
  }
}

function rowCheck(shape: RowShape): (row: unknown, stmt: Statement) => void {
  const columns = Object.keys(shape)
  const checks = columns.map((c) => cellCheck(c, shape[c]!))
  return (row, stmt) => {
    const r = row as Record<string, unknown>
    for (let i = 0; i < columns.length; i++) checks[i]!(r[columns[i]!], stmt)
  }
}

/** Every row of `stmt`, each checked against `shape`. */
export function allRows<const S extends RowShape>(stmt: Statement, shape: S, ...params: unknown[]): Array<RowOf<S>> {
  const rows = stmt.all(...params)
  const check = rowCheck(shape)
  for (const row of rows) check(row, stmt)
  return rows as Array<RowOf<S>>
}

/** The first row of `stmt`, checked, or undefined when there is none. */
export function getRow<const S extends RowShape>(stmt: Statement, shape: S, ...params: unknown[]): RowOf<S> | undefined {
  const row = stmt.get(...params)
  if (row === undefined) return undefined
  rowCheck(shape)(row, stmt)
  return row as RowOf<S>
}

/** A row that must exist (an aggregate such as COUNT(*)), checked. */
export function oneRow<const S extends RowShape>(stmt: Statement, shape: S, ...params: unknown[]): RowOf<S> {
  const row = getRow(stmt, shape, ...params)
  if (row === undefined) throw new StrideError(`The session file answered no row from ${sourceOf(stmt)}; it may be damaged.`, 'malformed-session')
  return row
}

/** Columns in the statement's order, for rows read as arrays: `[['point', 'int'], ['level', 'int']]`. */
export type ColumnList = ReadonlyArray<readonly [name: string, kind: ColumnKind]>
export type TupleOf<C extends ColumnList> = { -readonly [I in keyof C]: C[I] extends readonly [string, infer K extends ColumnKind] ? ValueOf<K> : never }

/**
 * Every row of `stmt` as an array (better-sqlite3's raw mode: no object with named keys per
 * row, about 3x faster on a run's thousands of per-point rows), each cell checked against
 * `columns`, which must name the statement's columns in order.
 */
export function allTuples<const C extends ColumnList>(stmt: Statement, columns: C, ...params: unknown[]): Array<TupleOf<C>> {
  const names = stmt.columns().map((c) => c.name)
  if (names.length !== columns.length || columns.some(([name], i) => names[i] !== name))
    throw new Error(`columns [${columns.map(([n]) => n).join(', ')}] do not match the statement's [${names.join(', ')}]`)
  const rows = stmt.raw(true).all(...params) as unknown[][]
  const checks = columns.map(([name, kind]) => cellCheck(name, kind))
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    for (let i = 0; i < checks.length; i++) checks[i]!(row[i], stmt)
  }
  return rows as Array<TupleOf<C>>
}

/**
 * A stored JSON object (stream metrics and statistics: tables no digest vouches for), parsed;
 * text that is not one is damage named as a row's bad value is, never a SyntaxError.
 */
export function storedJsonObject(text: string, where: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = undefined
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
  throw new StrideError(`The session file has an unexpected value in ${where} (expected a JSON object, found ${found(text)}); it may be damaged or written by another program.`, 'malformed-session')
}

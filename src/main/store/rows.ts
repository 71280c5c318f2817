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

function checkCell(v: unknown, column: string, kind: ColumnKind, stmt: Statement): void {
  const optional = kind.endsWith('?')
  if (v === null && optional) return
  const check = CHECKS[(optional ? kind.slice(0, -1) : kind) as BaseKind]
  if (!check.ok(v))
    throw new StrideError(
      `The session file has an unexpected value in ${sourceOf(stmt)}.${column} (expected ${check.what}${optional ? ' or NULL' : ''}, found ${found(v)}); it may be damaged or written by another program.`,
      'malformed-session'
    )
}

function checkRow(row: unknown, shape: RowShape, stmt: Statement): void {
  const r = row as Record<string, unknown>
  for (const column in shape) checkCell(r[column], column, shape[column]!, stmt)
}

/** Every row of `stmt`, each checked against `shape`. */
export function allRows<const S extends RowShape>(stmt: Statement, shape: S, ...params: unknown[]): Array<RowOf<S>> {
  const rows = stmt.all(...params)
  for (const row of rows) checkRow(row, shape, stmt)
  return rows as Array<RowOf<S>>
}

/** The first row of `stmt`, checked, or undefined when there is none. */
export function getRow<const S extends RowShape>(stmt: Statement, shape: S, ...params: unknown[]): RowOf<S> | undefined {
  const row = stmt.get(...params)
  if (row === undefined) return undefined
  checkRow(row, shape, stmt)
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
  for (const row of rows) for (let i = 0; i < columns.length; i++) checkCell(row[i], columns[i]![0], columns[i]![1], stmt)
  return rows as Array<TupleOf<C>>
}

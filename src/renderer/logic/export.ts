/**
 * Export of any view's table or chart (pure parts): rows to CSV (RFC 4180 quoting) and JSON,
 * and safe file names. components/ExportMenu.tsx does the downloading.
 */

export type Cell = string | number | boolean | null | undefined

export interface ExportTable {
  columns: string[]
  rows: Cell[][]
}

/**
 * One CSV field. Fields with a comma, quote, CR/LF or edge spaces are quoted (quotes doubled);
 * text that a spreadsheet would run as a formula (= + - @ at the start) is prefixed with '
 * so an exported name can never execute. Numbers are written as they are.
 */
export function csvField(value: Cell): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  let text = value
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** CSV text with a header row, CRLF line ends (RFC 4180), no trailing line break. */
export function toCsv(table: ExportTable): string {
  const width = table.columns.length
  for (const [i, row] of table.rows.entries())
    if (row.length !== width) throw new Error(`row ${i + 1} has ${row.length} cells, the header ${width}`)
  return [table.columns, ...table.rows].map((row) => row.map(csvField).join(',')).join('\r\n')
}

/** JSON array of objects keyed by column name (non-finite numbers become null). */
export function toJson(table: ExportTable): string {
  const objects = table.rows.map((row) => Object.fromEntries(table.columns.map((c, i) => {
    const v = row[i]
    return [c, typeof v === 'number' && !Number.isFinite(v) ? null : (v ?? null)]
  })))
  return JSON.stringify(objects, null, 2)
}

/** A file name from a title: letters, digits, dot, dash and underscore only. */
export function exportFileName(title: string, extension: string): string {
  const base = title.trim().replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'stride-export'
  return `${base}.${extension}`
}

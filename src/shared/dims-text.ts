/** A data structure's dimensions as every view prints them, saying when they were inferred. */
import type { DimsSource } from './domain'

/** `[64][512]`, or `[64][512] (inferred from strides)`; empty without dimensions. */
export function dimsText(v: { dims?: readonly number[] | null; dimsFrom?: DimsSource | null }): string {
  if (!v.dims || v.dims.length === 0) return ''
  return `[${v.dims.join('][')}]${v.dimsFrom === 'strides' ? ` (${INFERRED})` : ''}`
}

/** What marks dimensions no debug type gave (domain.ts DimsSource 'strides'). */
export const INFERRED = 'inferred from strides'

/**
 * The correlator (src/main/correlate/correlator.ts) learns about heap blocks from the
 * allocation interposer's log lines (alloc-events.ts), in trace order. The Frida agent
 * records the same facts as ring records; these write them in that line format so both
 * backends feed one correlator unchanged. (A typed alloc()/free() on the correlator would
 * make this file unnecessary.)
 */
import type { AllocKindName } from './batch-decoder'

const OP: Record<AllocKindName, string> = { malloc: 'm', calloc: 'c', realloc: 'r' }
const hex = (n: number) => Math.max(0, n).toString(16)

export function allocLine(kind: AllocKindName, block: number, size: number, old: number, site: number): string {
  return `**0** stride-alloc ${OP[kind]} ${hex(block)} ${hex(size)} ${hex(old)} ${hex(site)}`
}

export function frameLine(pc: number): string {
  return `==0==    at 0x${hex(pc)}: (frida backtrace)`
}

export function freeLine(block: number): string {
  return `**0** stride-alloc f ${hex(block)}`
}

/**
 * Decodes the agent's binary batches (src/agent/protocol.ts: 32-byte little-endian records)
 * into calls on a visitor, in record order. Pure: bytes in, calls out. Addresses are user
 * space (< 2^47 on x86-64) and so exact as JavaScript numbers.
 */
import { StrideError } from '../../../shared/errors'
import { AllocKind, RECORD, RECORD_BYTES, RecordType, UntracedReason } from '../../../agent/protocol'

export type AllocKindName = 'malloc' | 'calloc' | 'realloc'
export type UntracedReasonName = 'gather' | 'rep-scan' | 'segment' | 'operand' | 'unknown'

export interface BatchVisitor {
  access(pc: number, kind: number, address: number, size: number, thread: number): void
  enter(fn: number, sp: number, returnAddress: number, thread: number): void
  exit(fn: number, sp: number, thread: number): void
  alloc(kind: AllocKindName, block: number, size: number, old: number, thread: number): void
  /** One backtrace frame of the thread's last alloc: index 0 is the allocation site. */
  frame(index: number, pc: number, thread: number): void
  free(block: number, thread: number): void
  untraced(pc: number, reason: UntracedReasonName, thread: number): void
}

const ALLOC_NAMES: Record<number, AllocKindName> = { [AllocKind.malloc]: 'malloc', [AllocKind.calloc]: 'calloc', [AllocKind.realloc]: 'realloc' }
const UNTRACED_NAMES: Record<number, UntracedReasonName> = {
  [UntracedReason.gather]: 'gather',
  [UntracedReason.repScan]: 'rep-scan',
  [UntracedReason.segment]: 'segment',
  [UntracedReason.operand]: 'operand'
}

/** Decodes `records` records from `bytes`; throws a StrideError on a malformed batch. */
export function decodeBatch(bytes: Uint8Array, records: number, visit: BatchVisitor): void {
  if (!Number.isInteger(records) || records < 0 || bytes.byteLength !== records * RECORD_BYTES)
    throw new StrideError(`The Frida agent sent a malformed batch: ${bytes.byteLength} bytes for ${records} records of ${RECORD_BYTES} bytes; the agent and Stride are from different builds (run "npm run build").`, 'internal')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const u64 = (at: number) => view.getUint32(at, true) + view.getUint32(at + 4, true) * 0x1_0000_0000
  for (let r = 0; r < records; r++) {
    const o = r * RECORD_BYTES
    const type = view.getUint8(o + RECORD.type)
    const kind = view.getUint8(o + RECORD.kind)
    const thread = view.getUint32(o + RECORD.thread, true)
    const a = u64(o + RECORD.a)
    switch (type) {
      case RecordType.access:
        if (kind > 2) throw malformed(r, `access kind ${kind}`)
        visit.access(a, kind, u64(o + RECORD.b), view.getUint16(o + RECORD.size, true), thread)
        break
      case RecordType.enter:
        visit.enter(a, u64(o + RECORD.b), u64(o + RECORD.c), thread)
        break
      case RecordType.exit:
        visit.exit(a, u64(o + RECORD.b), thread)
        break
      case RecordType.alloc: {
        const name = ALLOC_NAMES[kind]
        if (!name) throw malformed(r, `allocation kind ${kind}`)
        visit.alloc(name, a, u64(o + RECORD.b), u64(o + RECORD.c), thread)
        break
      }
      case RecordType.frame:
        visit.frame(kind, a, thread)
        break
      case RecordType.free:
        visit.free(a, thread)
        break
      case RecordType.untraced:
        visit.untraced(a, UNTRACED_NAMES[kind] ?? 'unknown', thread)
        break
      default:
        throw malformed(r, `record type ${type}`)
    }
  }
}

function malformed(record: number, what: string): StrideError {
  return new StrideError(`The Frida agent sent a malformed batch (record ${record}: unknown ${what}); the agent and Stride are from different builds (run "npm run build").`, 'internal')
}

/**
 * `stride export SESSION --format raw --out FILE`: the decompressed trace as 24-byte
 * little-endian records `u64 pc, u64 address, u32 size, u32 kind`, written chunk by chunk.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { StrideError } from '../../shared/api'
import { iterateChunks, openSessionDb } from '../store/session-reader'
import { flag, parseArgs } from './args'
import type { Io } from './io'

export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { format: { value: true }, out: { value: true } }, 'export')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride export: give one session file, e.g. stride export s.stride --format raw --out trace.bin.')
  if ((flag(args, 'format') ?? 'raw') !== 'raw') throw new StrideError(`stride export: --format must be raw, not "${flag(args, 'format')}".`)
  const out = flag(args, 'out')
  if (!out) throw new StrideError('stride export: give the file to write with --out FILE.')
  const db = openSessionDb(session, { readonly: true })
  const pointRows = db.prepare('SELECT idx, pc, kind FROM points ORDER BY idx').all() as Array<{ idx: number; pc: number; kind: number }>
  const pcs = pointRows.map((r) => BigInt(r.pc))
  const kinds = pointRows.map((r) => r.kind)
  const fd = openSync(out, 'w')
  let events = 0
  try {
    for (const chunk of iterateChunks(db, pointRows.length)) {
      const buf = Buffer.allocUnsafe(chunk.count * 24)
      for (let i = 0; i < chunk.count; i++) {
        const p = chunk.points[i]!
        const at = i * 24
        buf.writeBigUInt64LE(pcs[p]!, at)
        buf.writeBigUInt64LE(BigInt(chunk.addresses[i]!), at + 8)
        buf.writeUInt32LE(chunk.sizes[i]!, at + 16)
        buf.writeUInt32LE(kinds[p]!, at + 20)
      }
      writeSync(fd, buf)
      events += chunk.count
    }
  } finally {
    closeSync(fd)
    db.close()
  }
  io.err(`stride export: ${events} records (${events * 24} bytes) -> ${out}`)
  return 0
}

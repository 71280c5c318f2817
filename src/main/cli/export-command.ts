/**
 * `stride export SESSION --format raw --out FILE [--chunks N] [--force]`: the decompressed
 * trace as 24-byte little-endian records `u64 pc, u64 address, u32 size, u32 kind`, written
 * chunk by chunk to a side file renamed into place only when complete (a failure leaves no
 * partial output and the old FILE untouched). `--chunks N` exports the first N chunks only
 * (what stays readable of a damaged session). SIGINT, SIGTERM or SIGHUP remove the side file
 * too (the loop yields between chunks so the signal is seen), and the export then dies of
 * the signal as if it had none handled.
 */
import { closeSync, existsSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import { resolve } from 'node:path'
import { StrideError } from '../../shared/errors'
import { iterateChunks, openSessionDb } from '../store/session-reader'
import { flag, has, parseArgs, positiveInt } from './args'
import type { Io } from './io'
import { checkPointValues } from '../store/integrity'

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Ends the process by `signal` with its default action (its handlers are gone), so the caller
 * sees the conventional status (a shell's 128 + N); 128 + N as the exit code should it not.
 */
async function dieOf(signal: NodeJS.Signals): Promise<number> {
  process.kill(process.pid, signal)
  await new Promise((r) => setTimeout(r, 1000))
  return 128 + (osConstants.signals[signal] ?? 0)
}

export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { format: { value: true }, out: { value: true }, chunks: { value: true }, force: {} }, 'export')
  const session = args.positional[0]
  if (!session || args.positional.length > 1) throw new StrideError('stride export: give one session file, e.g. stride export s.stride --format raw --out trace.bin.')
  if ((flag(args, 'format') ?? 'raw') !== 'raw') throw new StrideError(`stride export: --format must be raw, not "${flag(args, 'format')}".`)
  const out = flag(args, 'out')
  if (!out) throw new StrideError('stride export: give the file to write with --out FILE.')
  const firstChunks = flag(args, 'chunks') ? positiveInt(flag(args, 'chunks')!, '--chunks', 'export') : null
  if (existsSync(out)) {
    if (existsSync(session) && realpathSync(out) === realpathSync(session)) throw new StrideError(`stride export: --out ${out} is the session being exported; choose another file.`)
    if (statSync(out).isDirectory()) throw new StrideError(`stride export: --out ${out} is a folder; name a file such as ${out.replace(/\/$/, '')}/trace.bin.`)
    if (!has(args, 'force')) throw new StrideError(`stride export: --out ${out} exists; choose another file, or pass --force to replace it.`)
  }
  const db = openSessionDb(session, { readonly: true })
  const temp = `${resolve(out)}.partial-${process.pid}`
  let pcs: bigint[]
  let kinds: Uint8Array
  try {
    // Checked: indexes 0..n-1, kinds in range, program counters whole numbers.
    const points = checkPointValues(db, session)
    pcs = Array.from(points.pcs, (pc) => BigInt(pc))
    kinds = points.kinds
  } catch (e) {
    db.close()
    throw e
  }
  let events = 0
  let done = false
  let stoppedBy: NodeJS.Signals | null = null
  const onSignal = (signal: NodeJS.Signals) => {
    stoppedBy ??= signal
  }
  // Handled before the side file exists: a signal between its creation and the handlers would
  // kill the export with its default action and leave the file behind.
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal)
  let fd: number
  try {
    fd = openSync(temp, 'wx')
  } catch (e) {
    db.close()
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal)
    throw new StrideError(`stride export: cannot write next to ${out} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); choose a writable folder.`)
  }
  try {
    for (const chunk of iterateChunks(db, kinds.length, firstChunks)) {
      // A signal is handled only between turns of the event loop: one between chunks.
      await new Promise<void>((r) => setImmediate(r))
      if (stoppedBy) break
      const buf = Buffer.allocUnsafe(chunk.count * 24)
      for (let i = 0; i < chunk.count; i++) {
        const p = chunk.points[i]!
        const at = i * 24
        buf.writeBigUInt64LE(pcs[p]!, at)
        buf.writeBigUInt64LE(BigInt(chunk.addresses[i]!), at + 8)
        buf.writeUInt32LE(chunk.sizes[i]!, at + 16)
        buf.writeUInt32LE(kinds[p]!, at + 20)
      }
      try {
        writeSync(fd, buf)
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        throw new StrideError(`stride export: cannot write ${out} (${code === 'ENOSPC' ? 'no space left on device' : code === 'EDQUOT' ? 'disk quota exceeded' : (code ?? (e as Error).message)}); nothing was written: free some space or choose another --out.`)
      }
      events += chunk.count
    }
    done = stoppedBy === null
  } finally {
    closeSync(fd)
    db.close()
    if (done) renameSync(temp, out)
    else rmSync(temp, { force: true })
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal)
  }
  if (stoppedBy) return await dieOf(stoppedBy)
  io.err(`stride export: ${events} records (${events * 24} bytes) -> ${out}`)
  return 0
}

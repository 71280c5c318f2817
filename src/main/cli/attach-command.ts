/**
 * `stride trace --attach PID|NAME --functions ...` and `stride trace --launch PROGRAM --backend
 * frida` (CLI.md): the Frida backend from the command line. Sampling (Mohan section 4):
 * `--sampling complete | max-samples=N | periodic=PERIOD_MS,INTERVAL_MS | convergence=THRESHOLD[,MIN_SAMPLES]`.
 */
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { StrideError } from '../../shared/errors'
import type { SamplingMode } from '../../agent/protocol'
import { assertRunnableProgram } from '../symbols/elf-reader'
import { checkFunctionsInProcess } from '../services/stride-service'
import { checkFunctions } from '../services/function-check'
import { rememberSession } from '../services/recent-sessions'
import type { FridaTarget } from '../tracing/frida/frida-tracer'
import { fridaOwner } from '../tracing/frida/frida-owner'
import { listProcFs, processByName } from '../tracing/frida/process-list'
import { flag, has, positiveInt, type ParsedArgs } from './args'
import { functionsFlag } from './function-list'
import { traceSeconds } from './trace-limits'
import { checkSessionOutput } from '../store/session-output'
import { lockSessionForRecording, type SessionLock } from '../store/session-lock'
import { progressLine, type Io } from './io'
import { exitNote } from './exit-note'

/** Pure: the --sampling value. */
export function parseSampling(text: string | undefined): SamplingMode {
  const bad = (why: string) =>
    new StrideError(`stride trace: --sampling "${text}" ${why}; use complete, max-samples=N, periodic=PERIOD_MS,INTERVAL_MS or convergence=THRESHOLD[,MIN_SAMPLES].`)
  if (text === undefined || text === 'complete') return { kind: 'complete' }
  const [kind, value = ''] = text.split('=')
  const nums = value.split(',').map((v) => Number(v))
  const whole = (n: number | undefined) => n !== undefined && Number.isSafeInteger(n) && n > 0
  switch (kind) {
    case 'max-samples':
      if (nums.length !== 1 || !whole(nums[0])) throw bad('needs a positive number of calls')
      return { kind: 'max-samples', samples: nums[0]! }
    case 'periodic':
      if (nums.length !== 2 || !whole(nums[0]) || !whole(nums[1])) throw bad('needs a period and an interval in milliseconds')
      return { kind: 'periodic', periodMs: nums[0]!, intervalMs: nums[1]! }
    case 'convergence':
      if (nums.length > 2 || !(nums[0]! > 0 && nums[0]! <= 10) || (nums.length === 2 && !(whole(nums[1]) && nums[1]! >= 2)))
        throw bad('needs a threshold (a fraction, e.g. 0.05) and optionally at least 2 samples')
      return { kind: 'convergence', threshold: nums[0]!, minSamples: nums[1] ?? 2 }
    default:
      throw bad('is not a sampling mode')
  }
}

export async function fridaTraceCommand(args: ParsedArgs, io: Io): Promise<number> {
  const attach = flag(args, 'attach')
  const launch = flag(args, 'launch')
  if (attach && launch) throw new StrideError('stride trace: give either --attach PID or --launch PROGRAM, not both.')
  const out = flag(args, 'out')
  if (!out) throw new StrideError('stride trace: give the session file to write with --out SESSION.stride.')
  checkSessionOutput(out, { force: has(args, 'force'), program: flag(args, 'launch') ?? null })
  // As the Valgrind backend splits them: commas inside C++ parameter lists do not split.
  const functions = functionsFlag(flag(args, 'functions'))
  if (functions.length === 0) throw new StrideError('stride trace: the Frida backend traces chosen functions: give them with --functions F1,F2 (see the process\'s functions in the Attach dialog).')
  const maxEvents = flag(args, 'max-events') ? positiveInt(flag(args, 'max-events')!, '--max-events', 'trace') : null
  const seconds = flag(args, 'seconds') ? traceSeconds(flag(args, 'seconds')!) : null
  const sampling = parseSampling(flag(args, 'sampling'))
  let target: FridaTarget
  if (attach) {
    // A PID, or a process name (from /proc: the name alone needs no Frida).
    const pid = /^\d+$/.test(attach) ? Number(attach) : processByName(listProcFs(), attach).pid
    if (pid < 1) throw new StrideError(`stride trace: --attach "${attach}" is not a process ID; list processes with ps (or use the Attach dialog).`)
    if (pid === process.pid) throw new StrideError('stride trace: Stride cannot trace itself; give another process ID.')
    target = { kind: 'attach', pid }
    // The process and the names are checked before Frida is needed.
    await checkFunctionsInProcess(target.pid, functions)
  } else if (launch) {
    assertRunnableProgram(launch)
    const program = realpathSync(launch)
    await checkFunctions(program, functions)
    target = { kind: 'spawn', program, args: args.rest }
  } else throw new StrideError('stride trace: give the process to attach to with --attach PID (or a program with --launch PROGRAM).')
  // Fail fast, before any worker: without Frida the one-line install hint.
  await fridaOwner().check()

  // One writer per session file: refused at once while another Stride writes it.
  const lock = lockSessionForRecording(resolve(out), `stride trace --backend frida (${target.kind === 'attach' ? `pid ${target.pid}` : target.program})`)
  try {
    return await fridaTraceLocked(io, out, target, { functions, maxEvents, seconds, sampling, trackHeap: !has(args, 'no-heap'), afterLimit: has(args, 'stop-at-limit') ? 'stop' : 'detach' }, lock)
  } finally {
    lock.release()
  }
}

async function fridaTraceLocked(
  io: Io,
  out: string,
  target: FridaTarget,
  o: { functions: string[]; maxEvents: number | null; seconds: number | null; sampling: ReturnType<typeof parseSampling>; trackHeap: boolean; afterLimit: 'detach' | 'stop' },
  lock: SessionLock
): Promise<number> {
  const { functions, maxEvents, seconds, sampling } = o
  const started = Date.now()
  const handle = fridaOwner().trace(
    { target, functions, maxEvents, maxSeconds: seconds, sampling, trackHeap: o.trackHeap, afterLimit: o.afterLimit, out: resolve(out) },
    (p) => {
      if (p.detached) {
        // As the Valgrind backend says it: why the command goes on waiting, and how to end it.
        io.progress(null)
        const limit = p.detached.reason === 'seconds' ? `after ${seconds} s` : p.detached.reason === 'max-events' ? `after ${maxEvents} events` : 'with its sampling done'
        io.err(`stride trace: note: recording stopped ${limit}; the program (pid ${p.detached.pid}) runs on uninstrumented and the trace ends when it does: kill ${p.detached.pid} to end it now (--stop-at-limit stops it at the limit instead).`)
      }
      io.progress(progressLine(p.phase, p.events, started) + (p.functions.length > 1 ? ` (${p.functions.map((f) => `${f.name} ${f.events}`).join(', ')})` : ''))
    },
    // The launched program's own output, where it would go under the Valgrind backend: this
    // command's stdout and stderr (the progress line cleared first).
    (o) => {
      io.progress(null)
      for (const c of o.chunks) (c.stream === 'stderr' ? process.stderr : process.stdout).write(c.text)
      if (o.dropped > 0) io.err(`stride trace: note: ${o.dropped} characters of the program's output were dropped (it wrote faster than they could be shown).`)
    }
  )
  const stop = () => handle.stop()
  process.once('SIGINT', stop)
  try {
    const done = await handle.result
    lock.release()
    io.progress(null)
    if (done.session !== resolve(out))
      io.err(`stride trace: note: the trace did not complete, so ${out} is kept as it was (only a complete trace replaces a session); what was recorded is in ${done.session}.`)
    rememberSession(done.session, done.program)
    const info = await import('../store/session-reader')
    const db = info.openSessionDb(done.session, { readonly: true })
    const s = info.readSessionInfo(db, done.session)
    db.close()
    const ratio = s.storedBytes > 0 ? (s.events * 24) / s.storedBytes : 0
    const status = s.partial ? ` (partial: ${s.stopReason}${s.stopMessage ? ` — ${s.stopMessage}` : ''})` : ''
    io.out(`${s.events} events, ${s.points} access points, ${s.storedBytes} bytes stored, compression ${ratio.toFixed(1)}x${status}${exitNote(s.programExit)} -> ${done.session}`)
    if (target.kind === 'attach') io.err(`stride trace: detached from process ${done.pid}${done.targetAlive ? ', which keeps running' : ' (it has exited)'}.`)
    return 0
  } finally {
    process.off('SIGINT', stop)
  }
}

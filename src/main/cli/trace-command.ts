/** `stride trace --launch PROGRAM ...` (CLI.md). */
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { StrideError } from '../../shared/errors'
import { assertRunnableProgram } from '../symbols/elf-reader'
import { checkFunctions } from '../services/function-check'
import { functionsFlag } from './function-list'
import { rememberSession } from '../services/recent-sessions'
import { runTraceWorker } from '../workers/run-worker'
import { SessionStatics } from '../store/session-statics'
import { flag, has, markProgramArgs, parseArgs, positiveInt, TRACE_FLAGS } from './args'
import { heldIo, progressLine, type Io } from './io'
import { checkSessionOutput } from '../store/session-output'
import { traceSeconds } from './trace-limits'
import { exitNote } from './exit-note'
import { lockSessionForRecording, type SessionLock } from '../store/session-lock'

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** `written`: told the session the trace wrote (beside --out when it did not complete); `stride top` ranks it. */
export async function traceCommand(argv: string[], io: Io, written?: (session: string) => void): Promise<number> {
  // `--launch PROG ARGS...`: the program's arguments need no "--" before them.
  const args = parseArgs(markProgramArgs(argv, TRACE_FLAGS), TRACE_FLAGS, 'trace')
  // A word before --launch, or between PROG and a "--" (options only there): not the program's.
  if (args.positional.length > 0)
    throw new StrideError(
      `stride trace: unexpected "${args.positional[0]}"; the program's arguments follow it (stride trace --out s.stride --launch ./prog arg1 arg2) or come after -- (stride trace --launch ./prog --out s.stride -- arg1 arg2).`
    )
  const backend = flag(args, 'backend') ?? (has(args, 'attach') ? 'frida' : 'valgrind')
  if (backend !== 'valgrind' && backend !== 'frida') throw new StrideError(`stride trace: --backend must be valgrind or frida, not "${backend}".`)
  // Frida's modules load only for a Frida trace (start-up time of every Valgrind trace).
  const wantsSimulation = has(args, 'cache') || has(args, 'tlb') || has(args, 'cachegrind-compatible')
  if ((has(args, 'attach') || backend === 'frida') && wantsSimulation)
    throw new StrideError('stride trace: --cache simulates after a Valgrind trace; with Frida, run stride simulate SESSION --cache ... once the trace is done.')
  if (has(args, 'attach') || backend === 'frida') return (await import('./attach-command')).fridaTraceCommand(args, io)
  if (has(args, 'sampling')) throw new StrideError('stride trace: --sampling applies to the Frida backend (--attach PID, or --launch PROGRAM --backend frida).')
  const launch = flag(args, 'launch')
  if (!launch) throw new StrideError('stride trace: give the program to run with --launch PROGRAM (or --attach PID).')
  const out = flag(args, 'out')
  if (!out) throw new StrideError('stride trace: give the session file to write with --out SESSION.stride.')
  assertRunnableProgram(launch)
  const program = realpathSync(launch)
  checkSessionOutput(out, { force: has(args, 'force'), program })
  // One writer per session file: a second trace to the same --out is refused here, at once.
  const lock = lockSessionForRecording(resolve(out), `stride trace --launch ${program}`)
  try {
    return await traceLocked(args, io, out, program, lock, written)
  } finally {
    lock.release()
  }
}

async function traceLocked(args: ReturnType<typeof parseArgs>, io: Io, out: string, program: string, lock: SessionLock, written?: (session: string) => void): Promise<number> {
  const wantsSimulation = has(args, 'cache') || has(args, 'tlb') || has(args, 'cachegrind-compatible')
  // C++ names as written (ns::f, S::method()) become the program's symbols here.
  const functions = await checkFunctions(program, functionsFlag(flag(args, 'functions')))
  const maxEvents = flag(args, 'max-events') ? positiveInt(flag(args, 'max-events')!, '--max-events', 'trace') : null
  const seconds = flag(args, 'seconds') ? traceSeconds(flag(args, 'seconds')!) : null
  if (has(args, 'follow-calls') && functions.length === 0) throw new StrideError('stride trace: --follow-calls records what the chosen functions call; give them with --functions F1,F2.')
  if (has(args, 'no-context') && functions.length === 0) throw new StrideError('stride trace: --no-context asks for the cold, function-only view of a --functions trace; a whole-program trace has no other.')
  // The first simulation, checked before the program runs (a bad cache is an error up front);
  // its modules load only when asked for, and those that print it only after the trace
  // (every trace's start-up is on the way to Valgrind's).
  const hierarchy = wantsSimulation ? await (await import('./hierarchy-flags')).hierarchyOfFlags(args, 'trace') : null

  const started = Date.now()
  // --no-heap: no malloc interposer, so the run is exactly the program's own (as under Cachegrind).
  // The program gets this terminal: stdin reaches it, its output is shown as it runs.
  const handle = runTraceWorker(
    {
      program,
      args: args.rest,
      functions,
      maxEvents,
      maxSeconds: seconds,
      out: resolve(out),
      trackHeap: !has(args, 'no-heap'),
      followCalls: has(args, 'follow-calls'),
      afterLimit: has(args, 'stop-at-limit') ? 'stop' : 'detach',
      // The first simulation of a --functions trace is warmed by the rest of the program unless --no-context.
      context: !has(args, 'no-context'),
      stdio: 'inherit',
      // Simulated by the trace's worker beside the naming, stored with the trace, and its
      // report built there, where the points are in memory (here it would read them again).
      ...(hierarchy ? { simulate: hierarchy, reportFirstRun: 'lines' as const } : {})
    },
    (p) => {
      if (p.detached) {
        // --seconds / --max-events without --stop-at-limit on a program that may never end:
        // say at once why the command goes on waiting, and how to end it.
        io.progress(null)
        const limit = p.detached.reason === 'seconds' ? `${seconds} s` : `${maxEvents} events`
        io.err(`stride trace: note: recording stopped after ${limit}; the program (pid ${p.detached.pid}) runs on uninstrumented and the trace ends when it does: kill ${p.detached.pid} to end it now (--stop-at-limit stops it at the limit instead).`)
      }
      io.progress(() => progressLine(p.phase, p.events, started))
    }
  )
  // Ctrl+C, a closed terminal or a kill: stop recording, keep what was recorded (partial).
  const stop = () => handle.stop()
  for (const signal of STOP_SIGNALS) process.on(signal, stop)
  try {
    const done = await handle.result
    // The session is written: a simulation of it (below, or another Stride's) may store runs.
    lock.release()
    io.progress(null)
    if (done.session !== resolve(out))
      io.err(`stride trace: note: the trace did not complete, so ${out} is kept as it was (only a complete trace replaces a session); what was recorded is in ${done.session}.`)
    rememberSession(done.session, program)
    written?.(done.session)
    // What the worker stored, as it says: opening and checking the file it has just written
    // took 35-40 ms of every trace's end.
    const s = done.stored
    const raw = s.events * 24
    const ratio = s.storedBytes > 0 ? raw / s.storedBytes : 0
    const status = s.partial ? ` (partial: ${s.stopReason}${s.stopMessage ? ` — ${s.stopMessage}` : ''})` : ''
    // --cache with no run stored beside the trace: it is simulated below, and the summary line
    // waits for it (a reader that leaves after one line, a broken pipe, must not cost the run).
    const simulatesAfter = hierarchy !== null && s.events > 0 && done.firstRun?.run == null && !done.firstRun?.cancelled
    const held = simulatesAfter ? heldIo(io) : null
    const summaryIo = held ?? io
    summaryIo.out(`${s.events} events, ${s.points} access points, ${s.storedBytes} bytes stored, compression ${ratio.toFixed(1)}x${status}${exitNote(s.programExit)} -> ${done.session}`)
    // A program that exec'd another: its own accesses are all there, the new program's are not.
    const exec = !s.partial && s.stopMessage ? /the program exec'd another[^;]*/.exec(s.stopMessage) : null
    if (exec) io.err(`stride trace: note: ${exec[0]}.`)
    if (!s.hasDebugInfo && s.debugInfoHint) io.err(`stride trace: note: ${s.debugInfoHint}`)
    // The fallback recorder is far slower: say why it was used, so the user can fix it.
    if (s.recorderNote) io.err(`stride trace: note: ${s.recorderNote}.`)
    // --cache: the first simulation, as `stride simulate` would run and print it (a partial or
    // cancelled trace too: what was recorded is simulated).
    if (hierarchy && s.events > 0) {
      const first = done.firstRun
      // Printed as the worker laid it out (printReport), from the report it built.
      if (first?.run != null && done.firstReportLines !== undefined) {
        io.out(done.firstReportLines)
        return 0
      }
      const simulating = await import('./simulate-command')
      if (first?.run != null) return simulating.printRuns(done.session, [first.run], new SessionStatics({ streams: false, keyed: false }), { baseline: false, json: false, more: `stride report ${done.session} --all lists them` }, io)
      if (first?.cancelled) throw new StrideError(`stride trace: the simulation was cancelled; the trace is kept (stride simulate ${done.session} --cache ... simulates it).`, 'cancelled')
      // Not run beside the naming (it failed there): the pool runs it, and says what is wrong.
      if (first) io.err(`stride trace: note: the simulation runs again after the trace (${first.why}).`)
      try {
        return await simulating.simulateAndPrint(done.session, [hierarchy], { baseline: false, poolSize: 1, json: false, command: 'trace', more: `stride report ${done.session} --all lists them` }, summaryIo)
      } finally {
        held?.flush()
      }
    }
    return 0
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, stop)
  }
}

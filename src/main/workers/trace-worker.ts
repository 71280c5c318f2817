/** Worker thread: runs one trace (Valgrind backend), writes the session, names its points. */
import { parentPort, workerData } from 'node:worker_threads'
import { StrideError } from '../../shared/errors'
import { strideValgrindTool } from '../tracing/valgrind/tool-build'
import { launchStrideTool, type LaunchedTool } from '../tracing/valgrind/tool-launch'
import type { ProgramDetached } from '../tracing/valgrind/valgrind-tracer'
import type { FirstAdvice, TraceWorkerInput, TraceWorkerStart, WorkerCommand, WorkerMessage } from './protocol'
import type { FirstSimulation } from '../session-analysis/first-simulation'
import { JsonText } from '../services/json-text'
import { loadCollation } from '../../shared/report-model'
import { OutputBatcher } from '../tracing/output-batcher'
import { contextLineFor } from '../session-analysis/warm-context'

// The first run's report (its JSON bytes) moves to the main thread instead of being copied.
const moved = (m: WorkerMessage): ArrayBuffer[] => (m.type === 'trace-done' ? [m.firstReport, m.firstAdvice?.json].filter((b) => b !== undefined).map((b) => b.buffer as ArrayBuffer) : [])
const send = (m: WorkerMessage) => parentPort!.postMessage(m, moved(m))
/** The program's output (when it is piped to us, not the CLI's terminal), in batches, ahead of the trace's end. */
const output = new OutputBatcher((batch) => send({ type: 'output', ...batch }))
const post = (m: WorkerMessage) => {
  if (m.type === 'trace-done' || m.type === 'error') output.flush()
  send(m)
}
let launched: LaunchedTool | null = null

/** The tracer's modules, loaded once the tool is started, or ahead by a spare worker. */
const loadModules = () =>
  Promise.all([
    import('../store/session-writer'),
    import('../correlate/correlator'),
    import('../tracing/valgrind/valgrind-tracer'),
    import('../tracing/valgrind/tool-tracer'),
    import('../tracing/session-symbols'),
    import('../symbols/elf-reader'),
    import('../correlate/source-expressions'),
    import('../session-analysis/first-simulation')
  ])

/**
 * The worker is started before its trace is known (run-worker.ts: the CLI starts it while it
 * reads its arguments, the app keeps one spare), so Node's ~70 ms start of a worker thread is
 * not on the way to Valgrind's start. A spare loads its modules while it waits.
 */
const modulesAhead = (workerData as TraceWorkerStart).preload ? loadModules() : null
modulesAhead?.catch(() => {}) // met again, and reported, when the trace awaits them
let started: (input: TraceWorkerInput) => void = () => {}
const inputArrived = new Promise<TraceWorkerInput>((resolve) => (started = resolve))
/** A stop that comes before the tracer exists is kept for it (module loads that yield would open that window). */
let stopWanted = false
let onStop: () => void = () => {}
parentPort!.on('message', (m: WorkerCommand) => {
  if (m.type === 'start') started(m.input)
  else if (m.type === 'stop') {
    stopWanted = true
    onStop()
  }
})

async function main(): Promise<void> {
  const arrived = await inputArrived
  const input = arrived.stdio === 'inherit' ? arrived : { ...arrived, onOutput: (stream: 'stdout' | 'stderr', bytes: Buffer) => output.write(stream, bytes) }
  // Stride's own Valgrind tool records at Cachegrind's speed; Lackey (a text line per access)
  // is the fallback where the tool cannot be built, and says so. STRIDE_RECORDER=lackey forces it.
  const built = process.env.STRIDE_RECORDER === 'lackey' ? { ok: false as const, reason: 'STRIDE_RECORDER=lackey' } : strideValgrindTool()
  // Valgrind starts first: its own start-up overlaps loading the rest of this worker (the
  // session writer, the codec, the symbol readers: ~60 ms); its records wait in the pipe.
  // Whole-program context needs Stride's tool (it emits the rest of the program's accesses).
  const contextLine = built.ok ? contextLineFor(input.functions, input.context, input.simulate) : null
  if (built.ok) launched = launchStrideTool({ ...input, contextLine }, built.tool)
  const [{ SessionWriter }, { Correlator }, { ValgrindTrace }, { ToolTrace }, { finishTracedSession, programDataLayout, programLoops }, { readElf }, { cParser }, { FirstSimulation }] = await (modulesAhead ?? loadModules())
  const writer = new SessionWriter(input.out, {
    program: input.program,
    args: input.args,
    backend: 'valgrind',
    functions: input.functions,
    createdAt: new Date().toISOString()
  })
  // gdb reads the layout while the tool starts; Lackey needs it first.
  const layout = programDataLayout(input.program).catch(() => null)
  // The loop nests need only the program: objdump and their lines run once gdb is done (it
  // competes with Valgrind's start-up), while the program runs, instead of at its end.
  const loops = layout.then(() => readElf(input.program)).then((elf) => programLoops(elf))
  loops.catch(() => {}) // no objdump: reports simply have no loops (awaited at the end)
  const progress = (events: number, detached?: ProgramDetached) => post({ type: 'progress', phase: 'tracing', events, total: input.maxEvents, ...(detached ? { detached } : {}) })
  const correlatorReady = layout.then((l) => new Correlator(l))
  const fallback = built.ok || process.env.STRIDE_RECORDER === 'lackey' ? null : `recorded with Lackey, which is much slower, because ${built.reason}`
  // The first simulation runs beside the naming (a layout filter's, after it: the caller's).
  const withContext = launched !== null && contextLine !== null
  const first =
    input.simulate && FirstSimulation.runsBeside(input.simulate)
      ? new FirstSimulation(input.simulate, (events, total) => post({ type: 'progress', phase: 'simulating', events, total }), { reportStreams: input.reportFirstRun !== 'lines', context: withContext, session: writer })
      : null
  // It simulates each chunk as it is sealed, while the program runs; with context, the tracer
  // feeds it the recorded and the rest of the program's accesses in order instead.
  if (first && !withContext) writer.feedChunks(first.live)
  const trace = launched ? new ToolTrace(input, launched, writer, progress, correlatorReady, withContext ? first!.live : null) : new ValgrindTrace(input, writer, progress, await correlatorReady)
  // A stop while recording ends the recording (what was recorded is still named and
  // simulated); a stop after it cancels the first simulation.
  let recording = true
  onStop = () => (recording ? trace.stop('cancelled', 'cancelled by the user') : first?.stop())
  if (stopWanted) onStop()
  let outcome
  try {
    const running = trace.run() // Valgrind is running (or spawned) before this returns
    // The C parser the naming ends with (~0.15 s to load), and what the first report's sort
    // needs, load while the program runs.
    void cParser()
    loadCollation()
    outcome = await running
    recording = false
  } catch (e) {
    // Keep whatever reached the file, marked partial, and say why (no first run: its first level's stream goes too).
    first?.stop()
    const message = e instanceof Error ? e.message : String(e)
    // Chunks still compressing in the background are committed first (a failed one is dropped).
    await writer.drain().catch(() => {})
    const kept = writer.eventCount > 0
    // Nothing recorded: leave no empty session behind (and never touch an older one).
    if (kept) writer.finish({ partial: true, stopReason: 'error', stopMessage: message, hasDebugInfo: false, debugInfoHint: null })
    else writer.discard()
    post({ type: 'error', message, code: e instanceof StrideError ? e.code : 'internal', session: kept ? (writer.sessionPath ?? input.out) : null })
    return
  }
  post({ type: 'progress', phase: 'symbolizing', events: writer.eventCount, total: null })
  const { partial, message, stored } = await finishTracedSession(writer, await correlatorReady, { ...outcome, loops }, {
    heapTracked: trace.heapTracked,
    programExit: outcome.programExit,
    threads: outcome.threads,
    recorder: outcome.recorder,
    recorderNote: fallback
  }, first)
  // A partial trace beside an older complete session is kept under its own name (SessionWriter.finish).
  const session = writer.sessionPath ?? input.out
  post({
    type: 'trace-done',
    session,
    events: writer.eventCount,
    partial,
    stopReason: outcome.stopReason,
    message,
    firstRun: first?.outcome ?? null,
    stored: { ...stored, programExit: outcome.programExit, recorderNote: fallback },
    ...(first && input.reportFirstRun ? await reportAs(first, session, input.reportFirstRun) : {})
  })
}

/**
 * The first run's report as the client asked for it (protocol.ts `reportFirstRun`). Nothing on
 * an error: the session is whole, and the client reads the run from it as before.
 */
async function reportAs(first: FirstSimulation, out: string, as: 'json' | 'lines'): Promise<{ firstReport: Uint8Array; firstAdvice?: FirstAdvice } | { firstReportLines: string } | Record<string, never>> {
  try {
    if (as === 'json') {
      const report = first.report(out)
      if (!report) return {}
      // And the diagnosis the app asks for beside it: the one stored, as getAdvice reads it.
      const advice = first.advice
      return { firstReport: JsonText.bytesOf(report), ...(advice ? { firstAdvice: { level: advice.level, json: JsonText.bytesOf(advice) } } : {}) }
    }
    // The table needs the run's totals and lines only.
    const report = first.lineReport(out)
    if (!report) return {}
    const { printLineReport } = await import('../cli/report-output')
    const lines: string[] = []
    printLineReport(report, { out: (line) => lines.push(line), err: (line) => lines.push(line), progress: () => {} }, { more: `stride report ${out} --all lists them` })
    return { firstReportLines: lines.join('\n') }
  } catch {
    return {}
  }
}

main().catch((e: unknown) => {
  // Failed before the tracer owned the tool (the session could not be created, say): stop it.
  launched?.child.kill('SIGKILL')
  launched?.dropRecords()
  post({ type: 'error', message: e instanceof Error ? e.message : String(e), code: e instanceof StrideError ? e.code : 'internal', session: null })
})

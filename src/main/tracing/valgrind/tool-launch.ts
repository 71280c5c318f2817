/**
 * Starts Stride's Valgrind tool on the program; tool-tracer.ts reads what it writes. Kept apart,
 * with only what a launch needs, so the trace worker starts Valgrind (a quarter of a second of
 * start-up of its own) before it loads the session writer, the codec and the symbol readers.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { realpathSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { StrideError } from '../../../shared/errors'
import { toolCommand, type StrideTool } from './tool-build'
import { closeToolEnds, dropSource, toolStream, type RecordSource } from './record-ring'
import { RecentOutput } from './recent-output'
import { STACK_PAD_VARIABLE, stackPad } from './stack-pad'
import type { TraceOptions } from './valgrind-tracer'

export interface LaunchedTool {
  child: ChildProcess
  /** Where the tool's records arrive (our ends of its ring, or of its pipe, fd 3), handed out once (to the reader). */
  takeRecords(): RecordSource
  /** Closes our ends if nobody took them (a trace that failed before reading). */
  dropRecords(): void
  /** The program's real path, as the tool was told it (--exe). */
  programPath: string
  /**
   * Valgrind's log (fd 4) and the program's output, kept from the spawn on: Node discards what
   * an unread child pipe holds when the child exits, and a program that crashes at once exits
   * before the tracer has loaded its modules.
   */
  recent: RecentOutput
  /** Rejects with a StrideError when the tool could not be started at all. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** How long the pipes the tool held may stay open after it exited (see `exited`). */
const EXIT_GRACE_MS = 250

export function launchStrideTool(options: TraceOptions, tool: StrideTool): LaunchedTool {
  const { program, functions } = options
  const programPath = realpathSync(program)
  const toolArgs = [
    '--tool=stride', // the core's name for the tool (no launcher passes it)
    '--out-fd=3',
    '--log-fd=4',
    // The core logs to its own copy of fd 4, out of the program's reach; the tool closes the
    // original, which the program would otherwise inherit (and could forge the log through).
    '--close-log-fd=4',
    '--demangle=no', // --fn names are the program's symbols
    // No gdbserver: nothing here attaches gdb, and its FIFOs (/tmp/vgdb-pipe-*) stay behind
    // whenever Valgrind is killed (a cancelled trace, --stop-at-limit).
    '--vgdb=no',
    `--exe=${programPath}`,
    // Entries and returns are cheap; whether the naming needs them is known only once the
    // program's debug information is read, which overlaps Valgrind's start-up.
    '--frames=yes',
    ...functions.map((f) => `--fn=${f}`),
    ...(options.followCalls && functions.length > 0 ? ['--follow-calls=yes'] : []),
    ...(options.maxEvents !== null ? [`--max-events=${options.maxEvents}`] : []),
    ...(options.maxSeconds !== null ? [`--max-ms=${Math.round(options.maxSeconds * 1000)}`] : []),
    ...(options.afterLimit === 'stop' ? ['--stop-at-limit=yes'] : []),
    ...(options.contextLine && functions.length > 0 ? ['--context=yes', `--context-line=${options.contextLine}`] : [])
  ]
  const env: NodeJS.ProcessEnv = { ...process.env, ...tool.env }
  // The program's environment as under Cachegrind run from the same shell, byte for byte where
  // Stride adds nothing, so that its stack starts where Cachegrind's run has it (stack-pad.ts):
  // a shell sets `_` to the command it runs.
  if (env._ !== undefined) env._ = tool.shellCommand
  if (options.trackHeap !== false) {
    env.LD_PRELOAD = [tool.preload, process.env.LD_PRELOAD].filter(Boolean).join(':')
    // Valgrind puts its core's preload first either way: the wrappers add their path and a colon.
    const pad = stackPad(Buffer.byteLength(tool.preload) + 1)
    if (pad !== null) env[STACK_PAD_VARIABLE] = pad
  }
  // The records go through a ring of shared memory (fds 3, 5 and 6), or a pipe (fd 3) where
  // none can be made. The CLI hands the program its terminal (stdin included); the app keeps
  // the output's tail.
  const stream = toolStream()
  const stdio: StdioOptions = options.stdio === 'inherit' ? ['inherit', 'inherit', 'inherit', ...stream.toolEnds] : ['ignore', 'pipe', 'pipe', ...stream.toolEnds]
  const start = toolCommand(tool, [...toolArgs, ...stream.toolArgs, program, ...options.args])
  let child: ChildProcess
  try {
    child = spawn(start.command, start.args, { stdio, env })
  } catch (e) {
    dropSource(stream.source)
    throw e
  } finally {
    closeToolEnds(stream.toolEnds)
  }
  const recent = new RecentOutput()
  ;(child.stdio[4] as Readable).on('data', (b: Buffer) => recent.logBytes(b))
  recent.keepOutput(child.stdout, child.stderr, options.onOutput)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', (e: NodeJS.ErrnoException) => reject(new StrideError(`Cannot start Stride's Valgrind tool (${e.message}); remove ${tool.tool} to rebuild it.`, 'tool-missing')))
    child.on('close', (code, signal) => resolve({ code, signal }))
    // A child the program forked and left running (a daemon) holds the log pipe and the output
    // pipes open, and `close` waits for it. What the tool wrote before it exited is read in a
    // moment: after EXIT_GRACE_MS the trace goes on without the child (as Cachegrind's run
    // ends while it lives on).
    child.on('exit', (code, signal) => {
      const grace = setTimeout(() => {
        for (const stream of [child.stdio[4], child.stdout, child.stderr]) (stream as Readable | null)?.destroy()
        resolve({ code, signal })
      }, EXIT_GRACE_MS)
      child.once('close', () => clearTimeout(grace))
    })
  })
  exited.catch(() => {}) // awaited by the tracer; a start failure must not go unhandled meanwhile
  let records: RecordSource | null = stream.source
  const takeRecords = (): RecordSource => {
    if (!records) throw new Error('internal: the tool\'s records were handed out twice')
    const taken = records
    records = null
    return taken
  }
  const dropRecords = () => {
    if (records) dropSource(takeRecords())
  }
  return { child, takeRecords, dropRecords, programPath, recent, exited }
}

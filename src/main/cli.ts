/**
 * The `stride` command line (docs/CLI.md): trace, top, simulate, report, info, advise, query,
 * objects, export, hierarchy, serve.
 * Results go to stdout; on bad input one clear line on stderr and a non-zero exit status.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { errorLine, boundLine } from './cli/error-line'
import { markProgramArgs, TOP_FLAGS, TRACE_FLAGS } from './cli/args'
import { processIo, type Io } from './cli/io'
import { sizeThreadPool } from './cli/thread-pool'
import { commandUsage, USAGE } from './cli/usage'
import { tierUpLater } from './cli/v8-tiering'

// Before anything queues work on Node's thread pool.
sizeThreadPool()
tierUpLater()

type Command = (argv: string[], io: Io) => Promise<number>
type Load = (own: string[]) => Promise<Command>

const warmForLaunch = (own: string[]): Promise<unknown> =>
  own.some((a) => a === '--launch' || a.startsWith('--launch=')) ? import('./workers/run-worker').then((w) => w.warmTraceWorker(false)) : Promise.resolve()

/** Each command loads only its own modules: `stride info` need not load the simulator, Frida's
 * backend or the API schemas (start-up is a good part of a short command's time). */
const COMMANDS: Record<string, Load> = {
  // A launch's worker thread starts first too: it boots while this thread loads the command
  // and reads its arguments, and starts Valgrind as soon as it is told the program.
  trace: (own) =>
    warmForLaunch(own)
      .then(() => import('./cli/trace-command'))
      .then((m) => m.traceCommand),
  top: (own) =>
    warmForLaunch(own)
      .then(() => import('./cli/top-command'))
      .then((m) => m.topCommand),
  // The simulation's worker thread starts first (~0.15 s to boot and load its modules, on the
  // other core), before this thread loads the command's own modules.
  simulate: () =>
    import('./workers/run-worker')
      .then((w) => w.taskPool.warm())
      .then(() => import('./cli/simulate-command'))
      .then((m) => m.simulateCommand),
  report: () => import('./cli/report-command').then((m) => m.reportCommand),
  info: () => import('./cli/info-command').then((m) => m.infoCommand),
  runs: () => import('./cli/runs-command').then((m) => m.runsCommand),
  export: () => import('./cli/export-command').then((m) => m.exportCommand),
  objects: () => import('./cli/objects-command').then((m) => m.objectsCommand),
  serve: () => import('./cli/serve-command').then((m) => m.serveCommand),
  query: () => import('./cli/query-command').then((m) => m.queryCommand),
  advise: () => import('./cli/advise-command').then((m) => m.adviseCommand),
  hierarchy: () => import('./cli/hierarchy-command').then((m) => m.hierarchyCommand)
}

async function main(argv: string[]): Promise<number> {
  const io = processIo()
  const [command, ...rest] = argv
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE)
    return command ? 0 : 2
  }
  if (command === '--version' || command === '-V' || command === 'version') {
    // What a bug report needs: Stride's version and the Node it runs on.
    const { projectRoot } = await import('./paths')
    const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }
    io.out(`stride ${version} (node ${process.version})`)
    return 0
  }
  const load = COMMANDS[command]
  if (!load) {
    io.err(boundLine(`stride: unknown command "${command.slice(0, 60)}"; commands: ${Object.keys(COMMANDS).join(', ')}, version.`))
    return 2
  }
  // Options before `--` only: what follows goes to the traced program (as do the words from
  // trace's first one after `--launch PROG` that is not its option: `--launch sort --help`).
  const marked = command === 'trace' ? markProgramArgs(rest, TRACE_FLAGS) : command === 'top' ? markProgramArgs(rest, TOP_FLAGS) : rest
  const own = marked.includes('--') ? marked.slice(0, marked.indexOf('--')) : marked
  if (own.includes('--help') || own.includes('-h')) {
    io.out(commandUsage(command))
    return 0
  }
  try {
    const run = await load(own)
    return await run(rest, io)
  } catch (e) {
    io.progress(null)
    // The session a command was given: its .stride word, else its first (trace has none).
    const session = command === 'trace' || (command === 'top' && own.some((a) => a.startsWith('--launch'))) ? undefined : (own.find((a) => a.endsWith('.stride')) ?? (own[0] && !own[0].startsWith('-') ? own[0] : undefined))
    const { line, status } = errorLine(command, e, session)
    io.err(line)
    return status
  }
}

/** Exit only after stdout and stderr drained: writes to a pipe are asynchronous. */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)))
}

main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (e: unknown) => {
    process.stderr.write(`${errorLine('', e).line}\n`)
    process.exit(1)
  }
)

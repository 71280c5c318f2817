/**
 * The `stride` command line (docs/CLI.md): trace, simulate, report, info, advise, query,
 * objects, export, serve.
 * Results go to stdout; on bad input one clear line on stderr and a non-zero exit status.
 */
import { StrideError } from '../shared/errors'
import { processIo, type Io } from './cli/io'

type Command = (argv: string[], io: Io) => Promise<number>

/** Each command loads only its own modules: `stride info` need not load the simulator, Frida's
 * backend or the API schemas (start-up is a good part of a short command's time). */
const COMMANDS: Record<string, () => Promise<Command>> = {
  trace: () => import('./cli/trace-command').then((m) => m.traceCommand),
  simulate: () => import('./cli/simulate-command').then((m) => m.simulateCommand),
  report: () => import('./cli/report-command').then((m) => m.reportCommand),
  info: () => import('./cli/info-command').then((m) => m.infoCommand),
  export: () => import('./cli/export-command').then((m) => m.exportCommand),
  objects: () => import('./cli/objects-command').then((m) => m.objectsCommand),
  serve: () => import('./cli/serve-command').then((m) => m.serveCommand),
  query: () => import('./cli/query-command').then((m) => m.queryCommand),
  advise: () => import('./cli/advise-command').then((m) => m.adviseCommand)
}

const USAGE = `usage: stride <command> [options]
  trace    --launch PROGRAM [--functions F1,F2] [--max-events N] [--seconds T] [--no-heap] --out S.stride [-- ARGS...]
  trace    --attach PID|NAME --functions F1,F2 [--max-events N] [--seconds T] [--sampling MODE] [--no-heap] --out S.stride
           (--launch PROGRAM --backend frida: spawn under Frida; MODE: complete, max-samples=N,
            periodic=PERIOD_MS,INTERVAL_MS, convergence=THRESHOLD[,MIN_SAMPLES])
  simulate S.stride --cache NAME:SIZE:ASSOC:LINE[:POLICY] ... [--cachegrind-compatible] [--json]
  report   S.stride [--run N] --by line|reference|variable|function|loop [--against M | OTHER.stride[:M]] [--json]
  info     S.stride [--json]
  export   S.stride --format raw --out FILE
  advise   S.stride [--run N] [--level NAME] [--json]
  objects  S.stride [--run N] [--level L1] --method exact|sample[:N]|search:WAYS|approx:raw|approx:loop|approx:skid
           [--interval prime|random|regular] [--threshold 0.01] [--every N] [--skid MEAN:SIGMA] [--source simulated|perf] [--json]
  query    S.stride '[{A,B},{sumfunc},{misses}]' [--run N] [--reduce sum|min|max] [--json]
  serve    [--port N]`

async function main(argv: string[]): Promise<number> {
  const io = processIo()
  const [command, ...rest] = argv
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE)
    return command ? 0 : 2
  }
  const load = COMMANDS[command]
  if (!load) {
    io.err(`stride: unknown command "${command}"; commands: ${Object.keys(COMMANDS).join(', ')}.`)
    return 2
  }
  try {
    const run = await load()
    return await run(rest, io)
  } catch (e) {
    io.progress(null)
    if (e instanceof StrideError) {
      const msg = e.message.startsWith('stride') ? e.message : `stride ${command}: ${e.message}`
      io.err(msg)
      return e.code === 'internal' ? 1 : 2
    }
    io.err(`stride ${command}: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
    return 1
  }
}

/** Exit only after stdout and stderr drained: writes to a pipe are asynchronous. */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)))
}

main(process.argv.slice(2)).then(
  (code) => exitAfterFlush(code),
  (e: unknown) => {
    process.stderr.write(`stride: ${String(e)}\n`)
    process.exit(1)
  }
)

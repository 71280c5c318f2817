/**
 * The `stride` command line (docs/CLI.md): trace, simulate, report, info, advise, query,
 * objects, export, serve.
 * Results go to stdout; on bad input one clear line on stderr and a non-zero exit status.
 */
import { StrideError } from '../shared/api'
import { adviseCommand } from './cli/advise-command'
import { exportCommand } from './cli/export-command'
import { infoCommand } from './cli/info-command'
import { objectsCommand } from './cli/objects-command'
import { processIo, type Io } from './cli/io'
import { reportCommand } from './cli/report-command'
import { queryCommand } from './cli/query-command'
import { serveCommand } from './cli/serve-command'
import { simulateCommand } from './cli/simulate-command'
import { traceCommand } from './cli/trace-command'

const COMMANDS: Record<string, (argv: string[], io: Io) => Promise<number>> = {
  trace: traceCommand,
  simulate: simulateCommand,
  report: reportCommand,
  info: infoCommand,
  export: exportCommand,
  objects: objectsCommand,
  serve: serveCommand,
  query: queryCommand,
  // ---- advisor ----
  advise: adviseCommand
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
  const run = COMMANDS[command]
  if (!run) {
    io.err(`stride: unknown command "${command}"; commands: ${Object.keys(COMMANDS).join(', ')}.`)
    return 2
  }
  try {
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

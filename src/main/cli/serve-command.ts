/** `stride serve [--port N]`: web mode on 127.0.0.1 with a per-run token. */
import { join } from 'node:path'
import { StrideError } from '../../shared/errors'
import { projectRoot } from '../paths'
import { startWebServer } from '../server'
import { createBackend } from '../services/create-backend'
import { flag, parseArgs } from './args'
import type { Io } from './io'

export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, { port: { value: true } }, 'serve')
  const portText = flag(args, 'port') ?? '0'
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new StrideError(`stride serve: --port "${portText.slice(0, 40)}" must be 0..65535 (0 picks a free port).`)
  const backend = createBackend()
  let server
  try {
    server = await startWebServer({ backend, port, rendererDir: join(projectRoot(), 'out', 'renderer') })
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') throw new StrideError(`stride serve: port ${port} is in use; pick another with --port or use --port 0.`)
    throw e
  }
  io.out(`Stride is serving on ${server.url}`)
  io.out('Open that URL in a browser on this machine. Press Ctrl+C to stop.')
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    process.once('SIGHUP', stop)
  })
  await server.close()
  await backend.dispose()
  return 0
}

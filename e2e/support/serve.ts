/**
 * Start `stride serve` (web mode) as a child process with its own STRIDE_HOME, and read
 * the tokenized URL it prints. Tests own the process and must call `stop()`.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')

export interface WebServer {
  url: string
  home: string
  /** Everything the server wrote, for failure messages. */
  output(): string
  stop(): Promise<void>
}

/** `env`: more environment for the server (STRIDE_EXAMPLES, CC, …). */
export async function startWebServer(timeoutMs = 60_000, env: NodeJS.ProcessEnv = {}): Promise<WebServer> {
  const cli = join(repoRoot, 'out', 'main', 'cli.js')
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first.`)
  const home = mkdtempSync(join(tmpdir(), 'stride-e2e-home-'))
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
    cwd: repoRoot,
    env: { ...process.env, ...env, STRIDE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let log = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d))
  const exited = new Promise<void>((r) => child.once('exit', () => r()))

  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`stride serve printed no URL within ${timeoutMs} ms:\n${log}`)), timeoutMs)
    const check = () => {
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/.exec(log)
      if (m) {
        clearTimeout(timer)
        resolveUrl(m[0])
      }
    }
    child.stdout.on('data', check)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`stride serve exited (${code}) before printing its URL:\n${log}`))
    })
  })

  return {
    url,
    home,
    output: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000)
        await exited
        clearTimeout(killer)
      }
      rmSync(home, { recursive: true, force: true })
    }
  }
}

// The app in web mode for the UI benches: `stride serve` on 127.0.0.1 (its per-run token in the
// URL it prints) and Debian's Chromium driven headless with playwright-core, as the e2e tests do.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

const cli = join(import.meta.dirname, '..', '..', 'out', 'main', 'cli.js')

/** `stride serve` in `cwd` (programs it launches run there), its settings under `home`; `nodeArgs` before the CLI (e.g. --cpu-prof). */
export function startServer(home, cwd, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--port', '0'], { cwd, env: { ...process.env, STRIDE_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout.setEncoding('utf8').on('data', (d) => (log += d))
  child.stderr.setEncoding('utf8').on('data', (d) => (log += d))
  const exited = new Promise((r) => child.once('exit', r))
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stride serve printed no URL within 60 s: ${log}`)), 60_000)
    child.stdout.on('data', () => {
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/.exec(log)
      if (m) {
        clearTimeout(timer)
        resolve(m[0])
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`stride serve exited (${code}) before printing its URL: ${log}`))
    })
  })
  return {
    url,
    log: () => log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(killer)
    }
  }
}

/** Debian's Chromium (CHROMIUM_PATH to override), headless. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run']
  })
}

// The app in web mode for the UI benches: `stride serve` on 127.0.0.1 (its per-run token in the
// URL it prints) and Debian's Chromium driven headless with playwright-core, as the e2e tests do.
import { spawn, spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

const root = join(import.meta.dirname, '..', '..')
const cli = join(root, 'out', 'main', 'cli.js')

/** A failure the bench says in one line (what failed, for which program), without a stack. */
export class BenchFailure extends Error {}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * Runs a bench's rounds against `server`: `body(open)` opens the browser when it is ready
 * (`open()` gives the server's URL and the browser, and prints the run's first line: time,
 * commit, machine, browser). Any failure is one line naming the bench and sets exit code 1; the
 * browser, the server and `work` are gone afterwards in every case.
 */
export async function runInBrowser(name, server, work, body) {
  let browser = null
  try {
    await body(async () => {
      const url = await server.url
      browser = await launchBrowser()
      const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim()
      const dirty = git(['status', '--porcelain', '--untracked-files=no']) ? '+changes' : ''
      console.log(`${new Date().toISOString()}  Stride ${git(['rev-parse', '--short', 'HEAD'])}${dirty}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  ${(totalmem() / 2 ** 30).toFixed(0)} GiB  node ${process.version}  ${browser.version()} headless`)
      return { url, browser }
    })
  } catch (e) {
    console.error(`${name}: ${e instanceof BenchFailure ? e.message : (e?.stack ?? e)}`)
    process.exitCode = 1
  } finally {
    await browser?.close()
    await server.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

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

/**
 * A page init script (page.addInitScript(socketSpy, { kind, mark })), added before a bench's
 * own probe: it wraps the page's WebSocket to time, in the page's clock, every request (sent,
 * replied, bytes, in window.__bench.requests), the `finished` event of the job of `kind`
 * (window.__bench.marks[mark]), a failed job (window.__bench.outcome) and the events an opened
 * session holds (window.__bench.events).
 */
export function socketSpy({ kind, mark }) {
  const now = () => performance.now()
  const b = (window.__bench ??= { marks: {}, requests: {}, events: null, outcome: null })
  const Native = window.WebSocket
  window.WebSocket = class extends Native {
    constructor(...a) {
      super(...a)
      this.addEventListener('message', (ev) => {
        const t = now()
        if (typeof ev.data !== 'string') return
        // Only the head of a message is read: a report is megabytes, and parsing it here would slow the page measured.
        const head = ev.data.slice(0, 80)
        if (head.startsWith('{"event":"finished"') && ev.data.slice(0, 400).includes(`"kind":"${kind}"`)) b.marks[mark] ??= t
        else if (head.startsWith('{"event":"failed"')) b.outcome ??= `the ${kind} failed: ${ev.data.slice(0, 600)}`
        const id = /^\{"id":(\d+)/.exec(head)?.[1]
        const r = id && b.requests[id]
        if (r && r.replied === undefined) {
          r.replied = t
          r.bytes = ev.data.length
          if (r.method === 'openSession') b.events = JSON.parse(ev.data).result?.events ?? null
        }
      })
    }
    send(text) {
      try {
        const m = JSON.parse(text)
        if (typeof m.id === 'number' && m.method) b.requests[m.id] = { method: m.method, sent: now() }
      } catch {
        // not a request: a cancel
      }
      super.send(text)
    }
  }
}

/**
 * One llvm-symbolizer kept running per thread for every lookup, of any object: its start-up
 * (loading libLLVM, ~0.1 s of CPU) is most of what a lookup costs, and a trace makes three
 * or more (the loops' lines while the program runs, then the heap blocks' frames and the
 * points' names at its end). Requests name their object on each input line and are answered
 * in order, a JSON line per address. The process ends after a few idle seconds and never
 * keeps Node running.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { StrideError } from '../../shared/errors'

const IDLE_MS = 5000

interface Request {
  lines: string[]
  left: number
  resolve(lines: string[]): void
  reject(e: Error): void
}

let child: ChildProcessWithoutNullStreams | null = null
const waiting: Request[] = []
let partial = ''
let idle: NodeJS.Timeout | null = null

/** Whether a path can be named on an input line (llvm-symbolizer takes it in double quotes). */
export const namable = (path: string): boolean => !/["\n\r]/.test(path)

/** The JSON reply line per address (`--output-style=JSON --inlines`), in order. */
export function symbolizeLines(path: string, linkAddresses: readonly number[]): Promise<string[]> {
  if (linkAddresses.length === 0) return Promise.resolve([])
  if (!namable(path)) return Promise.reject(new Error(`cannot name ${JSON.stringify(path)} to llvm-symbolizer`))
  const proc = child ?? start()
  if (idle) clearTimeout(idle)
  idle = null
  setRef(proc, true)
  return new Promise((resolve, reject) => {
    waiting.push({ lines: [], left: linkAddresses.length, resolve, reject })
    proc.stdin.write(linkAddresses.map((a) => `"${path}" 0x${a.toString(16)}\n`).join(''))
  })
}

function start(): ChildProcessWithoutNullStreams {
  const proc = spawn('llvm-symbolizer', ['--output-style=JSON', '--inlines'], { stdio: ['pipe', 'pipe', 'pipe'] })
  child = proc
  partial = ''
  proc.stdout.setEncoding('utf8').on('data', (text: string) => received(proc, text))
  proc.stderr.on('data', () => {}) // warnings; replies come on stdout
  proc.stdin.on('error', () => {}) // a dead process is reported by 'close'
  proc.on('error', (e: NodeJS.ErrnoException) =>
    ended(proc, e.code === 'ENOENT' ? new StrideError('"llvm-symbolizer" is not installed; install llvm (Debian: apt-get install llvm).', 'tool-missing') : e)
  )
  proc.on('close', (code, signal) => ended(proc, new Error(`llvm-symbolizer ended (${signal ?? `exit ${code}`}) before answering`)))
  return proc
}

function received(proc: ChildProcessWithoutNullStreams, text: string): void {
  const lines = (partial + text).split('\n')
  partial = lines.pop() ?? ''
  for (const line of lines) {
    const request = waiting[0]
    if (!request) {
      // A reply no one asked for: the stream is out of step; start afresh.
      proc.kill()
      return
    }
    request.lines.push(line)
    if (--request.left > 0) continue
    waiting.shift()
    request.resolve(request.lines)
  }
  if (waiting.length === 0) {
    setRef(proc, false)
    idle = setTimeout(() => proc.stdin.end(), IDLE_MS)
    idle.unref()
  }
}

function ended(proc: ChildProcessWithoutNullStreams, e: Error): void {
  if (child !== proc) return
  child = null
  if (idle) clearTimeout(idle)
  idle = null
  for (const request of waiting.splice(0)) request.reject(e)
}

/** A process with nothing asked of it must not keep the thread's event loop alive. */
function setRef(proc: ChildProcessWithoutNullStreams, on: boolean): void {
  for (const handle of [proc, proc.stdin, proc.stdout, proc.stderr] as Array<{ ref(): void; unref(): void }>) {
    if (on) handle.ref()
    else handle.unref()
  }
}

/**
 * Ends the thread's llvm-symbolizer, if one runs, once it has answered what it was asked, and
 * resolves when it has exited. A worker thread that ends before its child leaves the child
 * unreaped (a zombie of the app's process per trace), so a trace's last lookup ends it.
 */
export function endSymbolizer(): Promise<void> {
  const proc = child
  if (!proc) return Promise.resolve()
  if (idle) clearTimeout(idle)
  idle = null
  setRef(proc, true)
  return new Promise((resolve) => {
    proc.once('close', () => resolve())
    proc.stdin.end()
  })
}

/**
 * One llvm-symbolizer kept running per thread for every lookup, of any object: its start-up
 * (loading libLLVM, ~0.1 s of CPU) is most of what a lookup costs, and a trace makes three
 * or more (the loops' lines while the program runs, then the heap blocks' frames and the
 * points' names at its end). Requests name their object on each input line and are answered
 * in order, a JSON line per address. The process ends after a few idle seconds and never
 * keeps Node running.
 */
import { StrideError } from '../../shared/errors'
import { startTool, type ToolProcess } from './tool-process'

const IDLE_MS = 5000

interface Request {
  lines: string[]
  left: number
  resolve(lines: string[]): void
  reject(e: Error): void
}

/** One llvm-symbolizer and the requests it has been given, answered in order. */
class Symbolizer {
  private readonly proc: ToolProcess | null = null
  /** Why it could not be started (asked afterwards, it answers with this). */
  private startError: Error | null = null
  private readonly waiting: Request[] = []
  private partial = ''
  private idle: NodeJS.Timeout | null = null
  /** Set once its input is closed: it answers what it has, then exits; new requests go to another. */
  private ending = false
  readonly exited: Promise<void>

  constructor() {
    let proc: ToolProcess
    try {
      proc = startTool('llvm-symbolizer', ['--output-style=JSON', '--inlines'])
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      this.startError = code === 'ENOENT' ? new StrideError('"llvm-symbolizer" is not installed; install llvm (Debian: apt-get install llvm).', 'tool-missing') : (e as Error)
      this.failed(this.startError)
      this.exited = Promise.resolve()
      return
    }
    this.proc = proc
    proc.stdout.setEncoding('utf8').on('data', (text: string) => this.received(text))
    proc.stderr.on('data', () => {}) // warnings; replies come on stdout
    proc.stdin.on('error', () => {}) // a dead process is reported by its exit
    this.exited = proc.exited.then(({ code, signal }) => this.failed(new Error(`llvm-symbolizer ended (${signal ?? `exit ${code}`}) before answering`)))
  }

  get accepting(): boolean {
    return !this.ending
  }

  ask(path: string, linkAddresses: readonly number[]): Promise<string[]> {
    this.clearIdle()
    this.setRef(true)
    return new Promise((resolve, reject) => {
      if (!this.proc) return reject(this.startError ?? new Error('llvm-symbolizer did not start'))
      this.waiting.push({ lines: [], left: linkAddresses.length, resolve, reject })
      this.proc.stdin.write(linkAddresses.map((a) => `"${path}" 0x${a.toString(16)}\n`).join(''))
    })
  }

  /** Closes its input: it answers what it was asked, then exits. */
  end(): Promise<void> {
    if (!this.ending) {
      this.ending = true
      this.clearIdle()
      // Kept alive until it has exited, so that this thread reaps it.
      this.setRef(true)
      this.proc?.stdin.end()
    }
    return this.exited
  }

  private received(text: string): void {
    const lines = (this.partial + text).split('\n')
    this.partial = lines.pop() ?? ''
    for (const line of lines) {
      const request = this.waiting[0]
      if (!request) {
        // A reply no one asked for: the stream is out of step; start afresh.
        this.proc?.kill()
        return
      }
      request.lines.push(line)
      if (--request.left > 0) continue
      this.waiting.shift()
      request.resolve(request.lines)
    }
    if (this.waiting.length === 0 && !this.ending) {
      this.setRef(false)
      this.idle = setTimeout(() => void this.end(), IDLE_MS)
      this.idle.unref()
    }
  }

  private failed(e: Error): void {
    this.ending = true
    this.clearIdle()
    for (const request of this.waiting.splice(0)) request.reject(e)
  }

  private clearIdle(): void {
    if (this.idle) clearTimeout(this.idle)
    this.idle = null
  }

  /** A process with nothing asked of it must not keep the thread's event loop alive. */
  private setRef(on: boolean): void {
    const { proc } = this
    if (!proc) return
    // The wait for its exit starts once its output has ended, and then holds the loop itself.
    for (const handle of [proc.stdin, proc.stdout, proc.stderr]) {
      if (on) handle.ref()
      else handle.unref()
    }
  }
}

/** The thread's latest symbolizer: it takes new requests unless it is ending. */
let current: Symbolizer | null = null
/** Every one not yet exited (an ending one answers what it has first). */
const alive = new Set<Symbolizer>()

/** Whether a path can be named on an input line (llvm-symbolizer takes it in double quotes). */
export const namable = (path: string): boolean => !/["\n\r]/.test(path)

/** The JSON reply line per address (`--output-style=JSON --inlines`), in order. */
export function symbolizeLines(path: string, linkAddresses: readonly number[]): Promise<string[]> {
  if (linkAddresses.length === 0) return Promise.resolve([])
  if (!namable(path)) return Promise.reject(new Error(`cannot name ${JSON.stringify(path)} to llvm-symbolizer`))
  if (!current?.accepting) {
    const started = new Symbolizer()
    alive.add(started)
    void started.exited.then(() => alive.delete(started))
    current = started
  }
  return current.ask(path, linkAddresses)
}

/**
 * Ends the thread's llvm-symbolizer, if one runs, once it has answered what it was asked, and
 * resolves when it has exited. A worker thread that ends before its child leaves the child
 * unreaped (a zombie of the app's process per trace), so a trace's last lookup ends it.
 */
export async function endSymbolizer(): Promise<void> {
  await Promise.all([...alive].map((s) => s.end()))
}

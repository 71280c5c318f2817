/**
 * A symbol tool's process (nm, gdb, ldd, objdump, llvm-symbolizer), started by the native
 * core's posix_spawn (resources/native/core/src/proc/spawn.c) rather than Node's spawn, which
 * forks the whole process: 10-50 ms of the calling thread per tool in an app's trace worker
 * (page tables of every thread's heap copied before the exec), a dozen tools per trace, most
 * on the way to the program's records or its report. posix_spawn shares the memory until the
 * exec: under a millisecond. Its pipes are net.Sockets, as a child_process's are.
 */
import { Socket } from 'node:net'
import { constants } from 'node:os'
import { nativeCore } from '../native/core'

type ProcExports = {
  procSpawn: (file: string, argv: string[], env: string[]) => [number, number, number, number]
  procWait: (pid: number) => Promise<[number, number]>
}

export interface ToolProcess {
  readonly pid: number
  readonly stdin: Socket
  readonly stdout: Socket
  readonly stderr: Socket
  /**
   * Settles once both outputs have ended and the process has exited (it is then reaped).
   * The caller reads stdout and stderr to their end (a paused stream never ends). `code` is
   * null when a signal ended it, as for a child_process.
   */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Sends `signal` (SIGTERM by default) unless it has been reaped already. */
  kill(signal?: NodeJS.Signals): void
}

const signalNames = new Map<number, NodeJS.Signals>(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]))

/**
 * Starts `cmd` (found in PATH) with `args` and `env`. Throws when it cannot be started, with
 * the errno's name as `code` ('ENOENT': not installed), as child_process's 'error' gives it.
 */
export function startTool(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ToolProcess {
  const core = nativeCore() as unknown as ProcExports
  const environment = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]))
  const [pid, inFd, outFd, errFd] = core.procSpawn(cmd, [cmd, ...args], environment)
  const stdin = new Socket({ fd: inFd, readable: false, writable: true })
  const stdout = new Socket({ fd: outFd, readable: true, writable: false })
  const stderr = new Socket({ fd: errFd, readable: true, writable: false })
  // A pipe's read does not fail short of a kernel bug; either way the stream closes, and the
  // caller learns from the exit status.
  stdout.on('error', () => {})
  stderr.on('error', () => {})
  let reaped = false
  const closed = (s: Socket) => new Promise<void>((resolve) => s.once('close', () => resolve()))
  // Waited for only once its output has ended: the wait holds a thread of Node's pool.
  const exited = Promise.all([closed(stdout), closed(stderr)])
    .then(() => core.procWait(pid))
    .then(([code, signal]) => {
      reaped = true
      return { code: signal ? null : code, signal: signal ? (signalNames.get(signal) ?? null) : null }
    })
  return {
    pid,
    stdin,
    stdout,
    stderr,
    exited,
    kill(signal = 'SIGTERM') {
      // Until it is reaped the pid is still this process's (a zombie at worst), never another's.
      if (reaped) return
      try {
        process.kill(pid, signal)
      } catch {
        // Gone already.
      }
    }
  }
}

/**
 * The last lines Valgrind logged and the last output the program wrote, kept bounded: what a
 * failed or crashed run is explained from, however long it ran. Both Valgrind backends use it.
 */
import type { Readable } from 'node:stream'

export class RecentOutput {
  /** Valgrind's own messages, a line each (the last 40). */
  readonly log: string[] = []
  /** The program's stdout and stderr, as they arrived (the last 20 blocks). */
  readonly output: string[] = []
  private logRest = ''

  logLine(line: string): void {
    this.log.push(line)
    if (this.log.length > 40) this.log.shift()
  }

  /** Splits a stream of log bytes into lines (a line cut between blocks waits for its end). */
  logBytes(b: Buffer): void {
    const lines = (this.logRest + b.toString('utf8')).split('\n')
    this.logRest = lines.pop() ?? ''
    for (const l of lines) this.logLine(l)
  }

  /**
   * Keeps the tail of the program's stdout and stderr (when they are pipes, not the terminal),
   * and hands every read to `sink` (the app shows the program's output) when there is one.
   */
  keepOutput(stdout: Readable | null, stderr: Readable | null, sink?: (stream: 'stdout' | 'stderr', bytes: Buffer) => void): void {
    for (const [name, stream] of [['stdout', stdout], ['stderr', stderr]] as const)
      stream?.on('data', (b: Buffer) => {
        this.output.push(b.toString('utf8'))
        if (this.output.length > 20) this.output.shift()
        sink?.(name, b)
      })
  }

  /** The last Valgrind line matching `pattern`, or the program's last output line, without Valgrind's ==PID== prefix. */
  lastReason(pattern: RegExp): string {
    const line = this.log.filter((l) => pattern.test(l)).pop() ?? this.output.join('').trim().split('\n').pop() ?? ''
    return line.replace(/^==\d+==\s*/, '').trim()
  }

  /**
   * Valgrind's "Process terminating with default action of signal N (SIGX)" line for `signal`,
   * the signal Valgrind itself died of (it dies of the program's), or null. The status is that
   * signal, never a line: a line naming another signal, or with none, is not Valgrind's.
   */
  fatalSignal(signal: string | null): string | null {
    if (!signal) return null
    return this.log.findLast((l) => /Process terminating with default action of signal/.test(l) && l.includes(`(${signal})`)) ?? null
  }
}

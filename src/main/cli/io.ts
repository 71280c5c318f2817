/** Output helpers: results on stdout, progress on stderr (only on a terminal), errors on stderr. */
import { groupDigits } from '../../shared/counts'

export interface Io {
  out(line: string): void
  err(line: string): void
  /** A progress line (null clears it); a function is called only when the line is shown (a terminal). */
  progress(line: string | null | (() => string)): void
}

export function processIo(): Io {
  const tty = Boolean(process.stderr.isTTY)
  // `stride report ... | head`: the reader left; stop quietly like other Unix tools.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0)
    throw e
  })
  return {
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
    progress: (line) => {
      if (!tty) return
      process.stderr.write('\r\x1b[2K' + ((typeof line === 'function' ? line() : line) ?? ''))
    }
  }
}

/**
 * `io` with its stdout lines held until `flush()` (errors and progress pass straight through):
 * a command that stores something prints it only once it is stored, so a reader that leaves
 * early (`stride simulate ... | head -1`, whose broken pipe ends the process) loses no run.
 */
export function heldIo(io: Io): Io & { flush(): void } {
  let lines: string[] = []
  return {
    out: (line) => void lines.push(line),
    err: (line) => io.err(line),
    progress: (line) => io.progress(line),
    flush: () => {
      const held = lines
      lines = []
      // One write: the lines as they would have been printed one by one.
      if (held.length > 0) io.out(held.join('\n'))
    }
  }
}

export function progressLine(phase: string, events: number, started: number): string {
  const s = (Date.now() - started) / 1000
  const rate = s > 0 ? Math.round(events / s) : 0
  return `${phase}: ${groupDigits(events)} events, ${groupDigits(rate)}/s, ${s.toFixed(1)} s`
}

/**
 * The traced program's output as the app keeps it: its stdout and stderr in arrival order,
 * bounded to the last `MAX_PROGRAM_OUTPUT` characters, counting what was cut (by the app, or
 * by the backend when the program wrote faster than its output goes out).
 */
import type { JobOutput, OutputChunk } from '../../shared/api'

/** The last 64 KiB (characters) of a run's output are kept. */
export const MAX_PROGRAM_OUTPUT = 64 * 1024

export interface ProgramOutputText {
  chunks: OutputChunk[]
  /** Characters kept. */
  chars: number
  /** Characters written before the kept ones and not kept. */
  cut: number
}

export const emptyOutput = (): ProgramOutputText => ({ chunks: [], chars: 0, cut: 0 })

/** `log` with `batch` appended (a new object; `log` is left as it was). */
export function appendOutput(log: ProgramOutputText, batch: Pick<JobOutput, 'chunks' | 'dropped'>, max = MAX_PROGRAM_OUTPUT): ProgramOutputText {
  const chunks = log.chunks.map((c) => ({ ...c }))
  let chars = log.chars
  let cut = log.cut + batch.dropped
  for (const c of batch.chunks) {
    if (!c.text) continue
    const last = chunks[chunks.length - 1]
    if (last?.stream === c.stream) last.text += c.text
    else chunks.push({ ...c })
    chars += c.text.length
  }
  while (chars > max) {
    const first = chunks[0]!
    const over = chars - max
    if (first.text.length <= over) {
      chunks.shift()
      chars -= first.text.length
      cut += first.text.length
    } else {
      first.text = first.text.slice(over)
      chars -= over
      cut += over
    }
  }
  return { chunks, chars, cut }
}

/** "1.2 KiB" etc. for the cut note. */
export function cutNote(cut: number): string | null {
  if (cut === 0) return null
  const size = cut >= 1024 * 1024 ? `${(cut / (1024 * 1024)).toFixed(1)} MiB` : cut >= 1024 ? `${(cut / 1024).toFixed(1)} KiB` : `${cut} characters`
  return `The first ${size} of the output were cut: only the last 64 KiB are kept.`
}

/**
 * Whether a stretch of output is binary data rather than text (`gzip -c`, `bzip2 -c` write
 * their archive to stdout): more than one character in twenty is a control character other
 * than a line break or tab, or the replacement character undecodable bytes became. Laid out
 * as text it is unreadable, and 64 KiB of it held the page for ~0.4 s as a trace ended.
 */
export function isBinaryText(text: string): boolean {
  let odd = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if ((code < 32 && code !== 9 && code !== 10 && code !== 13) || code === 127 || code === 0xfffd) odd++
  }
  return odd * 20 > text.length
}

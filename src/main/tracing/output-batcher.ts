/**
 * The traced program's output on its way to the app: decoded as UTF-8 per stream (a character
 * cut between two reads waits for its end), kept in arrival order, and sent in batches (one
 * message per interval, not one per write). Bounded: what waits is at most `maxChars`; a
 * program that writes faster loses the oldest text, counted in the next batch's `dropped`.
 */
import { StringDecoder } from 'node:string_decoder'
import type { OutputChunk } from '../../shared/api'

export type OutputStream = OutputChunk['stream']

export interface OutputBatch {
  chunks: OutputChunk[]
  dropped: number
}

export class OutputBatcher {
  private chunks: OutputChunk[] = []
  private chars = 0
  private dropped = 0
  private timer: NodeJS.Timeout | null = null
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }

  constructor(
    private readonly send: (batch: OutputBatch) => void,
    private readonly intervalMs = 150,
    private readonly maxChars = 64 * 1024
  ) {}

  write(stream: OutputStream, bytes: Buffer): void {
    this.add(stream, this.decoders[stream].write(bytes))
  }

  private add(stream: OutputStream, text: string): void {
    if (!text) return
    const last = this.chunks[this.chunks.length - 1]
    if (last?.stream === stream) last.text += text
    else this.chunks.push({ stream, text })
    this.chars += text.length
    // Over the bound: the oldest text goes (the end of a run's output is what explains it).
    while (this.chars > this.maxChars) {
      const first = this.chunks[0]!
      const over = this.chars - this.maxChars
      if (first.text.length <= over) {
        this.chunks.shift()
        this.chars -= first.text.length
        this.dropped += first.text.length
      } else {
        first.text = first.text.slice(over)
        this.chars -= over
        this.dropped += over
      }
    }
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs)
  }

  /** Sends what waits now (the program ended, or the trace is about to report its end). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const stream of ['stdout', 'stderr'] as const) this.add(stream, this.decoders[stream].end())
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.chunks.length === 0 && this.dropped === 0) return
    const batch = { chunks: this.chunks, dropped: this.dropped }
    this.chunks = []
    this.chars = 0
    this.dropped = 0
    this.send(batch)
  }
}

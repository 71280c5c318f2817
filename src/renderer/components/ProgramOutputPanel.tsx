/**
 * "Program output": what the traced program wrote to its stdout and stderr (stderr marked),
 * collapsible, apart from Stride's own messages; the last 64 KiB, with a note when cut.
 */
import { useEffect, useRef } from 'react'
import type { ProgramOutputText } from '../logic/program-output'
import { cutNote, isBinaryText } from '../logic/program-output'

interface Props {
  output: ProgramOutputText
  /** Still running: the view follows the end as it grows. */
  live: boolean
  /** Open at first. */
  defaultOpen?: boolean
  testId?: string
}

export function ProgramOutputPanel({ output, live, defaultOpen = false, testId = 'program-output' }: Props) {
  const pre = useRef<HTMLPreElement>(null)
  useEffect(() => {
    const el = pre.current
    // Reading scrollHeight lays the text out: only while it is shown.
    if (el && live && el.closest('details')?.open) el.scrollTop = el.scrollHeight
  }, [output, live])
  const note = cutNote(output.cut)
  const empty = output.chars === 0
  const lines = empty ? 0 : output.chunks.reduce((n, c) => n + (c.text.match(/\n/g)?.length ?? 0), 0)
  return (
    <details className="program-output" open={defaultOpen} data-testid={testId}>
      <summary>
        Program output{' '}
        <span className="muted small">
          {empty ? (live ? '(nothing yet)' : '(none: the program wrote nothing)') : `(${lines.toLocaleString('en-US')} line${lines === 1 ? '' : 's'}${output.chunks.some((c) => c.stream === 'stderr') ? ', stderr in red' : ''})`}
        </span>
      </summary>
      {note && (
        <p className="muted small" data-testid="program-output-cut">
          {note}
        </p>
      )}
      {!empty && (
        <pre ref={pre} className="program-output-text" aria-label="The program's stdout and stderr" data-testid="program-output-text">
          {output.chunks.map((c, i) => (
            <span key={i} className={c.stream === 'stderr' ? 'is-stderr' : undefined} data-stream={c.stream}>
              {isBinaryText(c.text) ? <em data-testid="program-output-binary">[binary data, {c.text.length.toLocaleString('en-US')} characters: not shown]</em> : c.text}
            </span>
          ))}
        </pre>
      )}
    </details>
  )
}

import { describe, expect, it } from 'vitest'
import { appendOutput, cutNote, emptyOutput, isBinaryText } from './program-output'

describe('program output kept by the app', () => {
  it('keeps stdout and stderr in arrival order, merging runs of one stream', () => {
    let log = appendOutput(emptyOutput(), { chunks: [{ stream: 'stdout', text: 'a' }, { stream: 'stdout', text: 'b' }, { stream: 'stderr', text: 'E' }], dropped: 0 })
    log = appendOutput(log, { chunks: [{ stream: 'stderr', text: 'F' }, { stream: 'stdout', text: 'c' }], dropped: 0 })
    expect(log.chunks).toEqual([
      { stream: 'stdout', text: 'ab' },
      { stream: 'stderr', text: 'EF' },
      { stream: 'stdout', text: 'c' }
    ])
    expect(log.cut).toBe(0)
    expect(cutNote(log.cut)).toBeNull()
  })

  it('is bounded: the oldest text goes, counted with what the backend dropped', () => {
    let log = appendOutput(emptyOutput(), { chunks: [{ stream: 'stdout', text: '0123456789' }], dropped: 5 }, 8)
    expect(log.chunks).toEqual([{ stream: 'stdout', text: '23456789' }])
    expect(log.cut).toBe(7)
    log = appendOutput(log, { chunks: [{ stream: 'stderr', text: 'abcdefghij' }], dropped: 0 }, 8)
    expect(log.chunks).toEqual([{ stream: 'stderr', text: 'cdefghij' }])
    expect(log.chars).toBe(8)
    expect(log.cut).toBe(17)
    expect(cutNote(2048)).toMatch(/first 2\.0 KiB .* last 64 KiB/)
  })

  it('tells binary data (an archive written to stdout) from text', () => {
    const archive = new TextDecoder().decode(Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24))
    expect(isBinaryText(archive)).toBe(true)
    expect(isBinaryText('line one\n\tindented: ü, 日本\r\n')).toBe(false)
    expect(isBinaryText('')).toBe(false)
    // A few stray control bytes in text (a bell, an escape) keep it text.
    expect(isBinaryText(`${'progress 50%\n'.repeat(20)}\x07\x1b[0m`)).toBe(false)
  })
})

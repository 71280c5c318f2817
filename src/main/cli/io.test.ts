import { afterEach, describe, expect, it, vi } from 'vitest'
import { heldIo, processIo, type Io } from './io'

describe('progress lines', () => {
  const tty = process.stderr.isTTY
  afterEach(() => {
    process.stderr.isTTY = tty
    vi.restoreAllMocks()
  })

  it('off a terminal: nothing written, a lazy line never formatted', () => {
    process.stderr.isTTY = false
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const line = vi.fn(() => 'simulating')
    processIo().progress(line)
    expect(line).not.toHaveBeenCalled()
    expect(write).not.toHaveBeenCalled()
  })

  it('on a terminal: the line, given or formatted when shown', () => {
    process.stderr.isTTY = true
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const io = processIo()
    io.progress(() => 'simulating 1/1 runs')
    io.progress('saving')
    io.progress(null)
    expect(write.mock.calls.map((c) => c[0])).toEqual(['\r\x1b[2Ksimulating 1/1 runs', '\r\x1b[2Ksaving', '\r\x1b[2K'])
  })
})

describe('held output', () => {
  it('prints nothing on stdout until flushed, then the lines as printed; errors pass straight through', () => {
    const calls: string[] = []
    const io: Io = { out: (l) => void calls.push(`out ${l}`), err: (l) => void calls.push(`err ${l}`), progress: () => {} }
    const held = heldIo(io)
    held.out('a')
    held.err('oops')
    held.out('b')
    expect(calls).toEqual(['err oops'])
    held.flush()
    held.flush()
    expect(calls).toEqual(['err oops', 'out a\nb'])
  })
})

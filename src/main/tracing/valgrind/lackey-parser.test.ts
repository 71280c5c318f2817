import { describe, expect, it } from 'vitest'
import { KIND_MODIFY, KIND_READ, KIND_WRITE, LackeyParser } from './lackey-parser'

function collect(chunks: string[], stopAfter = Infinity) {
  const events: Array<[number, number, number, number]> = []
  const logs: string[] = []
  const p = new LackeyParser({
    access(pc, kind, addr, size) {
      events.push([pc, kind, addr, size])
      return events.length < stopAfter
    },
    log(line) {
      logs.push(line)
    }
  })
  for (const c of chunks) if (!p.push(Buffer.from(c))) break
  p.end()
  return { events, logs, parser: p }
}

const SAMPLE = [
  '==42== Lackey, an example Valgrind tool',
  'I  0401ab70,3',
  'I  0401ab73,5',
  ' S 1fff000758,8',
  'I  00109159,4',
  ' L 0010c040,8',
  ' M 0421b48,4',
  'I  7fffffffe000,2',
  ' L 7fffffffdff8,16',
  '==42== Process terminating with default action of signal 11 (SIGSEGV)',
  ''
].join('\n')

describe('LackeyParser', () => {
  it('attributes each data access to the instruction line before it', () => {
    const { events, logs } = collect([SAMPLE])
    expect(events).toEqual([
      [0x401ab73, KIND_WRITE, 0x1fff000758, 8],
      [0x109159, KIND_READ, 0x10c040, 8],
      [0x109159, KIND_MODIFY, 0x421b48, 4],
      [0x7fffffffe000, KIND_READ, 0x7fffffffdff8, 16]
    ])
    expect(logs).toHaveLength(2)
    expect(logs[1]).toContain('SIGSEGV')
  })

  it('gives the same events however the stream is split into chunks', () => {
    const whole = collect([SAMPLE]).events
    for (let cut = 1; cut < SAMPLE.length; cut += 7) {
      const split = collect([SAMPLE.slice(0, cut), SAMPLE.slice(cut, cut + 5), SAMPLE.slice(cut + 5)]).events
      expect(split).toEqual(whole)
    }
    const byByte = collect(SAMPLE.split('')).events
    expect(byByte).toEqual(whole)
  })

  it('parses a final line without a newline', () => {
    expect(collect(['I  10,1\n L 20,4']).events).toEqual([[0x10, KIND_READ, 0x20, 4]])
  })

  it('stops when the sink says so and ignores the rest', () => {
    const { events, parser } = collect([SAMPLE], 2)
    expect(events).toHaveLength(2)
    expect(parser.isStopped).toBe(true)
  })

  it('counts lines it cannot read instead of inventing events', () => {
    const { events, parser } = collect(['hello from the target\nI  zz,3\n X 10,4\n L ,4\n L 10,0\nI  10,1\n L 20,4\n'])
    expect(events).toEqual([[0x10, KIND_READ, 0x20, 4]])
    expect(parser.malformedLines).toBe(5)
  })

  it('passes client messages to the log, and instructions right after a store to a hook', () => {
    const pcs: number[] = []
    const logs: string[] = []
    const p = new LackeyParser({ access: () => true, log: (l) => logs.push(l), instructionAfterStore: (pc) => pcs.push(pc) })
    p.push(Buffer.from('I  10,1\n**7** stride-alloc f 5000\nI  11,5\n S 7ff8,8\nI  40,1\n L 7ff8,8\nI  12,1\n'))
    expect(pcs).toEqual([0x40])
    expect(logs).toEqual(['**7** stride-alloc f 5000'])
  })

  it('rejects addresses too wide to be exact in a double', () => {
    const { events, parser } = collect(['I  10,1\n L 12345678901234,4\n'])
    expect(events).toEqual([])
    expect(parser.malformedLines).toBe(1)
  })
})

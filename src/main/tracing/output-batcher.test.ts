import { describe, expect, it } from 'vitest'
import { OutputBatcher, type OutputBatch } from './output-batcher'

describe('the program output batcher (trace worker)', () => {
  it('sends stdout and stderr in arrival order, in one batch per flush, with UTF-8 cut between reads kept whole', () => {
    const sent: OutputBatch[] = []
    const b = new OutputBatcher((batch) => sent.push(batch), 60_000)
    const euro = Buffer.from('€\n')
    b.write('stdout', Buffer.from('sum = '))
    b.write('stdout', euro.subarray(0, 1))
    b.write('stderr', Buffer.from('warn\n'))
    b.write('stdout', euro.subarray(1))
    expect(sent).toEqual([])
    b.flush()
    expect(sent).toEqual([{ chunks: [{ stream: 'stdout', text: 'sum = ' }, { stream: 'stderr', text: 'warn\n' }, { stream: 'stdout', text: '€\n' }], dropped: 0 }])
    b.flush()
    expect(sent).toHaveLength(1)
  })

  it('is bounded: a program that writes faster than batches go out loses its oldest text, counted', () => {
    const sent: OutputBatch[] = []
    const b = new OutputBatcher((batch) => sent.push(batch), 60_000, 10)
    for (let i = 0; i < 100; i++) b.write('stdout', Buffer.from('0123456789'))
    b.flush()
    expect(sent).toEqual([{ chunks: [{ stream: 'stdout', text: '0123456789' }], dropped: 990 }])
  })
})

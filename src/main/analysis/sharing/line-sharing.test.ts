import { describe, expect, it } from 'vitest'
import { LineSharingDetector, type ThreadedBatch } from './line-sharing'

/** "T:K@ADDR" with K r|w|m, 8 bytes each; point = kind. */
function batch(text: string): ThreadedBatch {
  const items = text.trim().split(/\s+/).map((s) => /^(\d+):([rwm])@(\d+)$/.exec(s)!)
  return {
    count: items.length,
    points: Uint32Array.from(items.map((m) => 'rwm'.indexOf(m[2]!))),
    addresses: Float64Array.from(items.map((m) => Number(m[3]))),
    sizes: new Uint16Array(items.length).fill(8),
    threads: Uint32Array.from(items.map((m) => Number(m[1])))
  }
}

function detect(text: string) {
  const d = new LineSharingDetector(64, Uint8Array.from([0, 1, 2]))
  const b = batch(text)
  d.survey(b)
  d.account(b)
  return d.result()
}

describe('line sharing', () => {
  it('finds false sharing whatever the schedule: threads one after the other still share the line', () => {
    // Valgrind-like: thread 1 runs its slice, then thread 2.
    const lines = detect('1:m@4096 1:m@4096 1:m@4096 2:m@4104 2:m@4104 2:m@4104')
    expect(lines).toHaveLength(1)
    const l = lines[0]!
    expect(l.address).toBe(4096)
    expect(l.verdict).toBe('false-sharing')
    expect(l.interleavings).toBe(1)
    // Recorded: none (thread 1 never came back); under fine interleaving each access misses.
    expect(l.recorded).toEqual({ trueSharing: 0, falseSharing: 0 })
    expect(l.fineEstimate).toEqual({ trueSharing: 0, falseSharing: 6 })
    expect(l.threads.map((t) => [t.thread, t.writes, t.footprints[0]!.offset])).toEqual([[1, 3, 0], [2, 3, 8]])
  })

  it('calls one counter bumped by both threads true sharing, and counts the recorded interleaving', () => {
    const [l] = detect('1:m@4096 2:m@4096 1:m@4096 2:m@4096')
    expect(l!.verdict).toBe('true-sharing')
    // Each thread's first access is cold, not coherence.
    expect(l!.recorded).toEqual({ trueSharing: 2, falseSharing: 0 })
    expect(l!.fineEstimate).toEqual({ trueSharing: 4, falseSharing: 0 })
    expect(l!.interleavings).toBe(3)
  })

  it('ignores lines only read by several threads, lines of one thread, and padded counters', () => {
    expect(detect('1:r@4096 2:r@4104 1:r@4096')).toEqual([])
    expect(detect('1:m@4096 1:m@4104')).toEqual([])
    expect(detect('1:m@4096 2:m@4160 1:m@4096 2:m@4160')).toEqual([])
  })

  it('bounds the estimate by the other threads\' writes', () => {
    // Thread 2 reads its own word 4 times; thread 1 writes its word once.
    const [l] = detect('1:w@4096 2:r@4104 2:r@4104 2:r@4104 2:r@4104')
    expect(l!.fineEstimate).toEqual({ trueSharing: 0, falseSharing: 1 })
  })
})

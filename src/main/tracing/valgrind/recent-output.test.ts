import { describe, expect, it } from 'vitest'
import { RecentOutput } from './recent-output'

describe('RecentOutput', () => {
  it('splits log bytes into lines across blocks and keeps the last 40', () => {
    const r = new RecentOutput()
    r.logBytes(Buffer.from('==1== first\n==1== sec'))
    r.logBytes(Buffer.from('ond\n'))
    expect(r.log).toEqual(['==1== first', '==1== second'])
    for (let i = 0; i < 50; i++) r.logLine(`line ${i}`)
    expect(r.log).toHaveLength(40)
    expect(r.log[39]).toBe('line 49')
  })

  it('explains a failure from the last matching Valgrind line, else the program\'s last output', () => {
    const r = new RecentOutput()
    r.logLine('==7== valgrind: cannot open x')
    r.logLine('==7== Process terminating with default action of signal 11 (SIGSEGV)')
    expect(r.lastReason(/cannot/)).toBe('valgrind: cannot open x')
    expect(r.fatalSignal('SIGSEGV')).toMatch(/signal 11/)
    // The status is the signal Valgrind died of: a line naming another, or none, is not its.
    expect(r.fatalSignal(null)).toBeNull()
    expect(r.fatalSignal('SIGKILL')).toBeNull()
    expect(new RecentOutput().lastReason(/x/)).toBe('')
  })
})

import { describe, expect, it } from 'vitest'
import { commandUsage, USAGE } from './usage'

describe('usage', () => {
  it("gives one command's lines, with the lines continuing them", () => {
    const trace = commandUsage('trace').split('\n')
    expect(trace[0]).toMatch(/^usage: stride trace +\[--functions F1,F2/)
    expect(trace[1]).toMatch(/--launch PROGRAM \[ARGS\.\.\.\]$/)
    expect(trace.some((l) => l.includes('--attach PID|NAME'))).toBe(true)
    expect(trace.some((l) => l.includes('periodic=PERIOD_MS'))).toBe(true)
    expect(trace.some((l) => l.includes('simulate'))).toBe(false)
    expect(commandUsage('serve')).toBe('usage: stride serve    [--port N]')
  })

  it('has a line for every command', () => {
    for (const c of ['trace', 'top', 'simulate', 'report', 'info', 'runs', 'export', 'advise', 'objects', 'query', 'hierarchy', 'serve']) expect(USAGE).toMatch(new RegExp(`\\n  ${c} `))
  })
})

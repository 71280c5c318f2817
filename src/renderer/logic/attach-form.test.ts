import { describe, expect, it } from 'vitest'
import { DEFAULT_SAMPLING, filterProcessList, stepProcess, parseSampling, parseSeconds } from './attach-form'

describe('attach form', () => {
  it('sampling modes parse into the API shape, with clear errors', () => {
    expect(parseSampling(DEFAULT_SAMPLING)).toEqual({ ok: true, value: { kind: 'complete' } })
    expect(parseSampling({ ...DEFAULT_SAMPLING, kind: 'max-samples', samples: '25' })).toEqual({ ok: true, value: { kind: 'max-samples', samples: 25 } })
    expect(parseSampling({ ...DEFAULT_SAMPLING, kind: 'periodic' })).toEqual({ ok: true, value: { kind: 'periodic', periodMs: 100, intervalMs: 900 } })
    expect(parseSampling({ ...DEFAULT_SAMPLING, kind: 'convergence', threshold: '0.1' })).toEqual({ ok: true, value: { kind: 'convergence', threshold: 0.1, minSamples: 2 } })
    expect(parseSampling({ ...DEFAULT_SAMPLING, kind: 'max-samples', samples: '0' })).toMatchObject({ ok: false, error: /positive whole number of calls/ })
    expect(parseSampling({ ...DEFAULT_SAMPLING, kind: 'periodic', periodMs: '1.5' })).toMatchObject({ ok: false })
    expect(parseSampling({ ...DEFAULT_SAMPLING, kind: 'convergence', threshold: '-1' })).toMatchObject({ ok: false, error: /fraction above 0/ })
  })

  it('seconds: empty is no limit', () => {
    expect(parseSeconds('')).toEqual({ ok: true, value: null })
    expect(parseSeconds('2.5')).toEqual({ ok: true, value: 2.5 })
    expect(parseSeconds('0')).toMatchObject({ ok: false })
  })

  it('process filter matches PID, name, user and command words', () => {
    const list = [
      { pid: 4242, name: 'spin', user: 'ann', command: '/x/spin 10', self: false },
      { pid: 7, name: 'bash', user: 'root', command: '-bash', self: false }
    ]
    expect(filterProcessList(list, '4242').map((p) => p.name)).toEqual(['spin'])
    expect(filterProcessList(list, 'ROOT bash').map((p) => p.pid)).toEqual([7])
    expect(filterProcessList(list, '')).toHaveLength(2)
  })

  it('process list keyboard: arrows, pages, Home/End; Stride itself is passed over', () => {
    const row = (pid: number, self = false) => ({ pid, name: `p${pid}`, user: 'u', command: `p${pid}`, self })
    const rows = [row(9), row(8, true), row(7), row(6), row(5)]
    expect(stepProcess(rows, null, 'ArrowDown')).toBe(9)
    expect(stepProcess(rows, null, 'ArrowUp')).toBe(5)
    expect(stepProcess(rows, 9, 'ArrowDown')).toBe(7)
    expect(stepProcess(rows, 7, 'ArrowUp')).toBe(9)
    expect(stepProcess(rows, 9, 'ArrowUp')).toBe(9)
    expect(stepProcess(rows, 5, 'ArrowDown')).toBe(5)
    expect(stepProcess(rows, 9, 'PageDown', 2)).toBe(6)
    expect(stepProcess(rows, 5, 'PageUp', 2)).toBe(7)
    expect(stepProcess(rows, 6, 'Home')).toBe(9)
    expect(stepProcess(rows, 9, 'End')).toBe(5)
    expect(stepProcess(rows, 6, 'x')).toBe(6)
    expect(stepProcess([row(1, true)], null, 'ArrowDown')).toBeNull()
  })
})

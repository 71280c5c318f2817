import { describe, expect, it } from 'vitest'
import { parsePerfStat, parseSrclines } from './perf-samples'

describe('perf support and samples', () => {
  it('reads "not supported" plainly', () => {
    const r = parsePerfStat('<not supported>,,cache-misses:u,0,100.00,,\n', '2')
    expect(r.supported).toBe(false)
    expect(r.reason).toMatch(/no cache-miss counter/)
  })

  it('a count means supported; a permission error names perf_event_paranoid', () => {
    expect(parsePerfStat('12345,,cache-misses:u,1000,100.00,,\n', '1')).toEqual({ supported: true, reason: null })
    expect(parsePerfStat('Error: Access to performance monitoring and observability operations is limited. perf_event_paranoid\n', '3').reason).toMatch(/perf_event_paranoid = 3/)
  })

  it('counts srcline samples per file and line', () => {
    const out = parseSrclines('\n  /src/k.c:30\n  /src/k.c:30\n  /src/k.c:31\n  ??:0\n')
    expect([...out.get('/src/k.c')!]).toEqual([[30, 2], [31, 1]])
  })
})

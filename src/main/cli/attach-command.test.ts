import { describe, expect, it } from 'vitest'
import { parseSampling } from './attach-command'

describe('--sampling', () => {
  it('parses the four modes of Mohan section 4', () => {
    expect(parseSampling(undefined)).toEqual({ kind: 'complete' })
    expect(parseSampling('complete')).toEqual({ kind: 'complete' })
    expect(parseSampling('max-samples=10')).toEqual({ kind: 'max-samples', samples: 10 })
    expect(parseSampling('periodic=50,450')).toEqual({ kind: 'periodic', periodMs: 50, intervalMs: 450 })
    expect(parseSampling('convergence=0.05')).toEqual({ kind: 'convergence', threshold: 0.05, minSamples: 2 })
    expect(parseSampling('convergence=0.1,5')).toEqual({ kind: 'convergence', threshold: 0.1, minSamples: 5 })
  })

  it('rejects malformed values with the accepted forms', () => {
    for (const bad of ['max-samples=0', 'max-samples', 'periodic=5', 'periodic=5,x', 'convergence=0', 'convergence=0.1,1', 'sometimes'])
      expect(() => parseSampling(bad), bad).toThrow(/use complete, max-samples=N, periodic=PERIOD_MS,INTERVAL_MS or convergence=THRESHOLD/)
  })
})

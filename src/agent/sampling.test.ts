import { describe, expect, it } from 'vitest'
import { SamplingPlan } from './sampling'

describe('SamplingPlan (Mohan section 4)', () => {
  it('complete: every call of every function is sampled, nothing is removed', () => {
    const plan = new SamplingPlan({ kind: 'complete' }, ['0x10', '0x20'])
    for (let i = 0; i < 1000; i++) {
      expect(plan.shouldSample('0x10')).toBe(true)
      expect(plan.sampled('0x10')).toBe('keep')
    }
    expect(plan.samples('0x10')).toBe(1000)
    expect(plan.finished).toBe(false)
  })

  it('max samples: instrumentation comes off after N calls, per function', () => {
    const plan = new SamplingPlan({ kind: 'max-samples', samples: 3 }, ['0x10', '0x20'])
    expect([plan.sampled('0x10'), plan.sampled('0x10'), plan.sampled('0x10')]).toEqual(['keep', 'keep', 'remove'])
    expect(plan.shouldSample('0x10')).toBe(false)
    expect(plan.shouldSample('0x20')).toBe(true)
    expect(plan.active()).toEqual(['0x20'])
    expect(plan.finished).toBe(false)
    plan.sampled('0x20')
    plan.sampled('0x20')
    expect(plan.sampled('0x20')).toBe('remove')
    expect(plan.finished).toBe(true)
  })

  it('periodic: nothing is sampled while paused, everything again after', () => {
    const plan = new SamplingPlan({ kind: 'periodic', periodMs: 10, intervalMs: 90 }, ['0x10'])
    plan.setPaused(true)
    expect(plan.shouldSample('0x10')).toBe(false)
    plan.setPaused(false)
    expect(plan.shouldSample('0x10')).toBe(true)
  })

  it('convergence: the host stops one function; unknown or already stopped ones are refused', () => {
    const plan = new SamplingPlan({ kind: 'convergence', threshold: 0.05, minSamples: 2 }, ['0x10', '0x20'])
    expect(plan.stop('0x10')).toBe(true)
    expect(plan.stop('0x10')).toBe(false)
    expect(plan.stop('0x99')).toBe(false)
    expect(plan.shouldSample('0x10')).toBe(false)
    expect(plan.shouldSample('0x99')).toBe(false)
    expect(plan.shouldSample('0x20')).toBe(true)
  })
})

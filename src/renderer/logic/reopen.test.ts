import { describe, expect, it } from 'vitest'
import type { RunSummary, SessionInfo } from '../../shared/domain'
import { runStillShown } from './reopen'

const run = (n: number, createdAt = `2026-11-28T10:00:0${n}Z`): RunSummary => ({
  run: n,
  createdAt,
  config: { levels: [], cachegrindCompatible: true },
  accesses: 1000,
  parent: null,
  name: null,
  label: `run ${n}`
} as RunSummary)

const info = (runs: RunSummary[], over: Partial<SessionInfo> = {}): SessionInfo => ({
  path: '/s/a.stride',
  schemaVersion: 30,
  program: '/bin/p',
  args: [],
  backend: 'valgrind',
  createdAt: '2026-11-28T09:59:00Z',
  functions: [],
  events: 1000,
  partial: false,
  stopReason: 'completed',
  stopMessage: null,
  storedBytes: 100,
  hasDebugInfo: true,
  debugInfoHint: null,
  points: 12,
  runs,
  ...over
} as SessionInfo)

describe('runStillShown', () => {
  it('keeps the run on screen when a what-if only added a run', () => {
    expect(runStillShown(info([run(1)]), info([run(1), run(2)]), 1)).toBe(true)
  })

  it('reads it again when the file holds another trace, or the run is gone or was made again', () => {
    const before = info([run(1)])
    expect(runStillShown(before, info([run(1), run(2)], { createdAt: '2026-11-28T11:00:00Z' }), 1)).toBe(false)
    expect(runStillShown(before, info([run(1)], { events: 999 }), 1)).toBe(false)
    expect(runStillShown(before, info([run(1)], { points: 13 }), 1)).toBe(false)
    expect(runStillShown(before, info([run(1)], { path: '/s/b.stride' }), 1)).toBe(false)
    expect(runStillShown(before, info([run(2)]), 1)).toBe(false)
    expect(runStillShown(before, info([run(1, '2026-11-28T12:00:00Z')]), 1)).toBe(false)
  })

  it('has nothing to keep without a session or a run before', () => {
    expect(runStillShown(null, info([run(1)]), 1)).toBe(false)
    expect(runStillShown(info([run(1)]), info([run(1)]), null)).toBe(false)
  })
})

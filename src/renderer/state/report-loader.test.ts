/** The session view's reports: whole the first time for a recording, figures after, whole again when they cannot be completed. */
import { describe, expect, it } from 'vitest'
import type { ReferenceStats, RunReport } from '../../shared/domain'
import { figuresOf } from '../../shared/report-figures'
import { ReportLoader } from './report-loader'

function ref(id: string, reads: number): ReferenceStats {
  return { id, pc: '0x1', kind: 'read', file: '/src/k.c', line: 3, function: 'f', variable: 'A', sourceExpr: 'a[i]', disasm: 'mov (%rax),%rbx', reads, writes: 0, levels: { L1: { hits: reads - 1, misses: 1, readMisses: 1, writeMisses: 0 } } }
}
function report(run: number, key: string | undefined, ids: string[]): RunReport {
  const r: RunReport = { run, config: { levels: [{ name: 'L1', size: 1024, assoc: 2, lineSize: 64, policy: 'lru' }], cachegrindCompatible: false }, levels: [], lines: [], references: ids.map((id, i) => ref(id, 10 * run + i)) }
  if (key) r.staticsKey = key
  return r
}

/** A backend whose runs are `reports`, counting what it was asked. */
function backend(reports: Map<string, RunReport>) {
  const asked: string[] = []
  const api = {
    getReport: async ({ session, run }: { session: string; run?: number | null }) => (asked.push(`report ${session} ${run}`), reports.get(`${session} ${run}`)!),
    getRunFigures: async ({ session, run }: { session: string; run?: number | null }) => (asked.push(`figures ${session} ${run}`), figuresOf(reports.get(`${session} ${run}`)!))
  }
  return { asked, loader: new ReportLoader(() => api) }
}

describe('ReportLoader', () => {
  it('asks for the whole report once per recording, then for figures, and gives back the same reports', async () => {
    const reports = new Map([
      ['/s 1', report(1, 'k1', ['a', 'b'])],
      ['/s 2', report(2, 'k1', ['a', 'b'])],
      ['/t 1', report(1, 'k9', ['z'])]
    ])
    const { asked, loader } = backend(reports)
    expect(await loader.load('/s', 1)).toEqual(reports.get('/s 1'))
    expect(await loader.load('/s', 2)).toEqual(reports.get('/s 2'))
    expect(await loader.load('/t', 1)).toEqual(reports.get('/t 1'))
    expect(await loader.load('/s', 1)).toEqual(reports.get('/s 1'))
    expect(asked).toEqual(['report /s 1', 'figures /s 2', 'report /t 1', 'figures /s 1'])
  })

  it('falls back to the whole report for another recording at the same path, a new reference, or an unfinished session', async () => {
    const reports = new Map([
      ['/s 1', report(1, 'k1', ['a'])],
      ['/s 2', report(2, 'k2', ['a'])], // traced again
      ['/s 3', report(3, 'k2', ['a', 'new'])],
      ['/u 1', report(1, undefined, ['a'])],
      ['/u 2', report(2, undefined, ['a'])]
    ])
    const { asked, loader } = backend(reports)
    await loader.load('/s', 1)
    expect(await loader.load('/s', 2)).toEqual(reports.get('/s 2'))
    expect(await loader.load('/s', 3)).toEqual(reports.get('/s 3'))
    await loader.load('/u', 1)
    expect(await loader.load('/u', 2)).toEqual(reports.get('/u 2'))
    expect(asked).toEqual(['report /s 1', 'figures /s 2', 'report /s 2', 'figures /s 3', 'report /s 3', 'report /u 1', 'report /u 2'])
  })
})

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Correlator } from '../correlate/correlator'
import { SessionWriter } from '../store/session-writer'
import { openSessionDb, readSessionInfo } from '../store/session-reader'
import { readElf } from '../symbols/elf-reader'
import { finishTracedSession, walkStrides } from './session-symbols'

describe('finishing a traced session', () => {
  it('a naming that fails keeps the trace complete with its accesses, its points unnamed, and says why', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'stride-naming-')), 'n.stride')
    const writer = new SessionWriter(out, { program: '/bin/true', args: [], backend: 'valgrind', functions: [], createdAt: 'x' })
    const points = [{ idx: 0, pc: 0x1000, kind: 0, accesses: 2, firstAddress: 0x4000 }]
    writer.appendChunk(2, Uint32Array.of(0, 0), Float64Array.of(0x4000, 0x4008), Uint16Array.of(8, 8), points, Float64Array.of(2))
    // The naming's first step fails (as a source line read as a pattern once did).
    const correlator = { allocEvents: 0, finish: () => { throw new Error('Invalid regular expression') } } as unknown as Correlator
    const elf = await readElf('/bin/true')
    const done = await finishTracedSession(writer, correlator, { points, modules: [], elf, stopReason: 'completed', message: null }, {})
    const said = 'the points and data structures could not be named (Invalid regular expression); the accesses are kept, unnamed'
    expect([done.partial, done.message]).toEqual([false, said])
    const db = openSessionDb(out, { readonly: true })
    const info = readSessionInfo(db, out)
    db.close()
    expect([info.events, info.partial, info.stopReason, info.stopMessage]).toEqual([2, false, 'completed', said])
    // What it says it stored (the CLI's summary line) is what the session says, here too.
    expect(done.stored).toEqual({ events: 2, points: 1, storedBytes: info.storedBytes, partial: false, stopReason: 'completed', stopMessage: said, hasDebugInfo: info.hasDebugInfo, debugInfoHint: info.debugInfoHint })
  })
})

describe("a data structure's walk strides", () => {
  const streams = (strides: Array<[number, number]>, n: number) => ({ point: 0, accesses: 0, regularity: 1, meanStreamLength: 0, streams: n, distinctLengths: 0, distinctStrides: strides.length, lengths: [], strides: strides.map(([stride, fraction]) => ({ stride, fraction })) })
  it("are its points' RSD strides weighted by RSD count, from points that spent at least 90% of their accesses on it", () => {
    const of = walkStrides(
      new Map([
        [0, streams([[4096, 1]], 512)],
        [1, streams([[8, 0.5], [16, 0.5]], 10)],
        [2, streams([[24, 1]], 4)]
      ]),
      new Map([
        [0, new Map([[5, 100]])],
        [1, new Map([[5, 95], [6, 5]])],
        [2, new Map([[5, 50], [6, 50]])]
      ])
    )
    expect(of(5)).toEqual([{ stride: 4096, weight: 512 }, { stride: 8, weight: 5 }, { stride: 16, weight: 5 }])
    expect(of(6)).toEqual([])
    expect(of(7)).toEqual([])
  })
})

/** ReadyReports: a report built ahead is handed out once, and only for the file it was built from. */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ReadyReports } from './ready-reports'

const json = (text: string) => new TextEncoder().encode(text)

const dir = mkdtempSync(join(tmpdir(), 'stride-ready-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ReadyReports', () => {
  it('hands a report out once, for its run of its session', () => {
    const session = join(dir, 'a.stride')
    writeFileSync(session, 'one')
    const ready = new ReadyReports()
    ready.put(session, 1, json('{"run":1}'))
    expect(ready.take(session, 2)).toBeNull()
    expect(ready.take(join(dir, 'b.stride'), 1)).toBeNull()
    expect(ready.take(session, 1)).toEqual(json('{"run":1}'))
    expect(ready.take(session, 1)).toBeNull()
  })

  it('drops a report whose session file was replaced since (a new trace to the same path)', () => {
    const session = join(dir, 'c.stride')
    writeFileSync(session, 'first recording')
    const ready = new ReadyReports()
    ready.put(session, 1, json('{"run":1}'))
    const other = join(dir, 'c2.stride')
    writeFileSync(other, 'second recording, another file')
    renameSync(other, session)
    expect(ready.take(session, 1)).toBeNull()
  })

  it('keeps a run\'s figures apart from its whole report: each goes to its own request', () => {
    const session = join(dir, 'e.stride')
    writeFileSync(session, 'e')
    const ready = new ReadyReports()
    ready.put(session, 2, json('{"figures":2}'), 'figures')
    expect(ready.take(session, 2)).toBeNull()
    expect(ready.take(session, 2, 'figures')).toEqual(json('{"figures":2}'))
    expect(ready.take(session, 2, 'figures')).toBeNull()
  })

  it('keeps only the last few', () => {
    const session = join(dir, 'd.stride')
    writeFileSync(session, 'x')
    const ready = new ReadyReports()
    for (let run = 1; run <= 10; run++) ready.put(session, run, json(String(run)))
    expect(ready.take(session, 1)).toBeNull()
    expect(ready.take(session, 10)).toEqual(json('10'))
  })
})

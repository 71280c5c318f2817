/**
 * Issue 51 through the built CLI: a session whose schema would run its own SQL during
 * `simulate` is refused in one line with nothing deleted; a FIFO session and a device as
 * --configs are refused at once; damage and long inputs are one bounded line, never a stack.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { openDb } from '../store/open-db'
import { SCHEMA_VERSION } from '../store/schema'
import { example, fixedEnv, stride, strideOk, tempDir } from '../testing/cli-runner'
import { copiedWith } from '../testing/session-mutations'

const dir = tempDir('integrity-cli')
const env = fixedEnv(dir)
const session = join(dir, 'conflict.stride')

function oneLine(r: { status: number | null; stderr: string }, status = 2): string {
  expect(r.status).toBe(status)
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(r.stderr).not.toMatch(/\n\s+at |internal error/)
  return lines[0]!
}

const damaged = (name: string, sql: string): string => copiedWith(session, join(dir, name), sql)

describe('stride on damaged and crafted input', () => {
  beforeAll(() => {
    strideOk(['trace', '--functions', 'sumfunc', '--out', session, '--launch', example('conflict')], env)
  }, 120_000)

  it('a session with a trigger that would delete its trace during simulate is refused; nothing is deleted', () => {
    const path = damaged('trigger.stride', 'CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM trace_chunks; END')
    const line = oneLine(stride(['simulate', path, '--cache', 'L1:32K:8:64'], env))
    expect(line).toBe(`stride simulate: ${path} is not a session as Stride writes it (it has a trigger "wipe"): damaged or altered, it is not opened; re-trace the program.`)
    const db = openDb(path, { readonly: true })
    expect((db.prepare('SELECT COUNT(*) AS n FROM trace_chunks').get() as { n: number }).n).toBeGreaterThan(0)
    expect((db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n).toBe(0)
    db.close()
  })

  it('an access kind out of range: info and export refuse in one line', () => {
    const path = damaged('kind.stride', 'UPDATE points SET kind = 9 WHERE idx = 0')
    expect(oneLine(stride(['info', path], env))).toMatch(/is damaged \(its point table was changed after the trace: its digest does not match\); re-trace the program\.$/)
    expect(oneLine(stride(['export', path, '--out', join(dir, 'kind.bin')], env))).toMatch(/is damaged \(its point table was changed/)
    expect(existsSync(join(dir, 'kind.bin'))).toBe(false)
  })

  it('a dropped column is one line naming it', () => {
    const path = damaged('column.stride', 'ALTER TABLE points DROP COLUMN disasm')
    expect(oneLine(stride(['report', path], env))).toMatch(new RegExp(`its table points does not have the columns of a v${SCHEMA_VERSION} session`))
  })

  it("a data structure's dimensions that are not a list of numbers: one line from every command that reads them, not an internal error", () => {
    const path = join(dir, 'dims.stride')
    copyFileSync(session, path)
    strideOk(['simulate', path, '--cache', 'L1:32K:8:64'], env)
    const db = openDb(path)
    db.exec("UPDATE variables SET dims = '{' WHERE id = (SELECT MIN(id) FROM variables)")
    db.close()
    for (const args of [['report', path, '--json'], ['advise', path], ['objects', path], ['simulate', path, '--cache', 'L1:16K:4:64', '--json']])
      expect(oneLine(stride(args, env)), args[0]).toMatch(/has an unexpected value in variables\.dims \(expected a JSON array of whole numbers or NULL, found "\{"\); it may be damaged/)
  })

  it('a FIFO as the session and a device as --configs are refused at once', () => {
    const fifo = join(dir, 'pipe.stride')
    execFileSync('mkfifo', [fifo])
    expect(oneLine(stride(['info', fifo], env))).toMatch(/pipe\.stride" is not a regular file \(a FIFO, socket or device\)/)
    expect(oneLine(stride(['export', fifo, '--out', join(dir, 'fifo.bin')], env))).toMatch(/is not a regular file/)
    expect(oneLine(stride(['simulate', session, '--configs', '/dev/zero'], env))).toBe('stride simulate: --configs /dev/zero is not a regular file (a FIFO, socket or device); give a file.')
  })

  it('10,000 --cache levels: one line of bounded length', () => {
    const args = ['simulate', session]
    for (let i = 0; i < 10_000; i++) args.push('--cache', `L${i}:32K:8:64`)
    const line = oneLine(stride(args, env))
    expect(line.length).toBeLessThanOrEqual(600)
  })

  it('read-only commands leave no -wal or -shm beside the session', () => {
    strideOk(['info', session], env)
    strideOk(['export', session, '--out', join(dir, 'ok.bin')], env)
    expect(readdirSync(dir).filter((f) => f.startsWith('conflict.stride'))).toEqual(['conflict.stride'])
  })
})

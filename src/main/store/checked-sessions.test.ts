/**
 * A session checked once per thread: opened again unchanged, it is not checked again; changed
 * behind the process's back between two opens (its point table rewritten in the write-ahead
 * log, or folded into the file, its times set back after; another file renamed over it), the
 * second open checks it and says the damage; one written moments ago is checked every time;
 * checks handed to a worker (here: another instance of the modules) are used only while the
 * file is unchanged.
 *
 * The clock is set a minute ahead (Date only), so that a session written by the test is as
 * settled as one stored long ago; its modification time is set long back, so that any write
 * of the test's shows in it.
 */
import { copyFileSync, mkdtempSync, renameSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { writeFullChunks } from '../testing/stored-chunks'
import { checkedSessions, settled, trustChecks } from './checked-sessions'
import { checkIntegrity } from './integrity'
import { openDb } from './open-db'
import { openSessionDb } from './session-reader'

vi.mock('./integrity', async (importOriginal) => {
  const real = await importOriginal<typeof import('./integrity')>()
  return { ...real, checkIntegrity: vi.fn(real.checkIntegrity) }
})

const dir = mkdtempSync(join(tmpdir(), 'stride-checked-'))
let serial = 0

/** A whole second long past (exact in every file system's times). */
const PAST = new Date('2026-01-01T00:00:00Z')

/** A finished session of one chunk, modified long ago. */
function stored(): string {
  const path = writeFullChunks(join(dir, `s${serial++}.stride`), 1)
  utimesSync(path, PAST, PAST)
  return path
}

/** Opens and closes the session as a reader; its error's message, or 'opened'. */
function open(path: string, opener = openSessionDb): string {
  try {
    opener(path, { readonly: true }).close()
    return 'opened'
  } catch (e) {
    return (e as Error).message
  }
}

const checks = () => vi.mocked(checkIntegrity).mock.calls.length
const rewritePoints = (db: ReturnType<typeof openDb>) => db.prepare('UPDATE points SET pc = pc + 4').run()
const DAMAGE = /is damaged \(its point table was changed after the trace: its digest does not match\)/

describe('a settled session', () => {
  beforeEach(() => {
    vi.mocked(checkIntegrity).mockClear()
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 60_000)
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('opened again unchanged, it is not checked again', () => {
    const path = stored()
    expect([open(path), open(path), open(path)]).toEqual(['opened', 'opened', 'opened'])
    expect(checks()).toBe(1)
  })

  it('its point table rewritten between two opens (folded into the file) is damage on the second', () => {
    const path = stored()
    expect(open(path)).toBe('opened')
    const db = openDb(path)
    rewritePoints(db)
    db.close()
    expect(open(path)).toMatch(DAMAGE)
  })

  it('its point table rewritten in the write-ahead log (the writer still open) is damage on the second open', () => {
    const path = stored()
    expect(open(path)).toBe('opened')
    const db = openDb(path)
    try {
      rewritePoints(db)
      expect(open(path)).toMatch(DAMAGE)
    } finally {
      db.close()
    }
  })

  it('rewritten with its modification time set back after is damage on the second open', async () => {
    const path = stored()
    // File times tick every few ms: the rewrite's change time is then not the stamp's.
    await new Promise((r) => setTimeout(r, 30))
    expect(open(path)).toBe('opened')
    const db = openDb(path)
    rewritePoints(db)
    db.close()
    utimesSync(path, PAST, PAST)
    expect(statSync(path).mtimeMs).toBe(PAST.getTime())
    expect(open(path)).toMatch(DAMAGE)
  })

  it('another session renamed over it, the same digests and a rewritten point table, is damage', () => {
    const path = stored()
    expect(open(path)).toBe('opened')
    const other = `${path}.other`
    copyFileSync(path, other)
    const db = openDb(other)
    rewritePoints(db)
    db.close()
    renameSync(other, path)
    expect(open(path)).toMatch(DAMAGE)
  })

  it("a worker handed this thread's checks does not check the file again, until it changes", async () => {
    const path = stored()
    expect(open(path)).toBe('opened')
    const handed = checkedSessions()
    // Another thread: its own instances of the modules (the counted check stays the one mock).
    vi.resetModules()
    const worker = { reader: await import('./session-reader'), checked: await import('./checked-sessions') }
    expect(worker.checked.checkedSessions()).toEqual([])
    worker.checked.trustChecks(handed)
    expect(open(path, worker.reader.openSessionDb)).toBe('opened')
    expect(checks()).toBe(1)
    const db = openDb(path)
    rewritePoints(db)
    db.close()
    expect(open(path, worker.reader.openSessionDb)).toMatch(DAMAGE)
    expect(checks()).toBe(2)
  })
})

describe('a session written moments ago', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('is checked on every open (a write within the same tick of the file clock would not show)', () => {
    vi.mocked(checkIntegrity).mockClear()
    const path = writeFullChunks(join(dir, `s${serial++}.stride`), 1)
    // The clock at the file's last change: within its tick, however long the write took.
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Number(statSync(path, { bigint: true }).ctimeNs / 1_000_000n) + 5)
    expect([open(path), open(path)]).toEqual(['opened', 'opened'])
    expect(checks()).toBe(2)
    expect(checkedSessions().some((c) => c.path === path)).toBe(false)
    trustChecks([])
  })

  it('is settled a tick later where the file system keeps fractions of a second, seconds later where it keeps whole seconds', () => {
    const at = (ms: number) => BigInt(ms) * 1_000_000n
    const fine = { newestNs: at(1_000_123) + 456n, fine: true }
    expect(settled(fine, 1_000_130)).toBe(false)
    expect(settled(fine, 1_000_200)).toBe(true)
    const whole = { newestNs: at(1_000_000), fine: false }
    expect(settled(whole, 1_000_200)).toBe(false)
    expect(settled(whole, 1_002_000)).toBe(false)
    expect(settled(whole, 1_003_000)).toBe(true)
  })

  it('written a tick before it is opened (times with fractions of a second, as here), is checked once', () => {
    vi.mocked(checkIntegrity).mockClear()
    const path = writeFullChunks(join(dir, `s${serial++}.stride`), 1)
    const changed = statSync(path, { bigint: true }).ctimeNs
    // This machine's file system keeps fine times (the CI's and developers' ext4/overlay/tmpfs).
    expect(changed % 1_000_000_000n).not.toBe(0n)
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Number(changed / 1_000_000n) + 200)
    expect([open(path), open(path)]).toEqual(['opened', 'opened'])
    expect(checks()).toBe(1)
    trustChecks([])
  })
})

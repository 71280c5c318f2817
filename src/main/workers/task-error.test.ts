import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { StrideError } from '../../shared/errors'
import { taskError } from './task-error'

describe("a task's failure as its worker posts it", () => {
  it('SQLite finding the file damaged is a damaged session; other errors as they are', () => {
    // A real SqliteError of the damage kind: an image that is not a database.
    let corrupt: unknown
    try {
      new Database(Buffer.from('not a database, only text'.repeat(200))).prepare('SELECT 1 FROM sqlite_master').get()
    } catch (e) {
      corrupt = e
    }
    expect((corrupt as { code: string }).code).toMatch(/^SQLITE_(NOTADB|CORRUPT)/)
    expect(taskError(corrupt)).toEqual({ message: expect.stringMatching(/^the session file is damaged \(SQLite: .+\)$/), code: 'malformed-session' })
    expect(taskError(Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT_INDEX' })).code).toBe('malformed-session')
    expect(taskError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toEqual({ message: 'database is locked', code: 'internal' })
    expect(taskError(new StrideError('No run 9.', 'not-found'))).toEqual({ message: 'No run 9.', code: 'not-found' })
    expect(taskError('text')).toEqual({ message: 'text', code: 'internal' })
  })
})

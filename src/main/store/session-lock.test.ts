import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lockFileOf, lockSessionForRecording, lockSessionForRuns } from './session-lock'

const dir = () => mkdtempSync(join(tmpdir(), 'stride-lock-'))

describe('session locks', () => {
  it('a lock is whole from the moment it exists: a second writer learns the holder, and no draft is left', () => {
    const d = dir()
    const session = join(d, 's.stride')
    const lock = lockSessionForRecording(session, 'stride trace --launch ./a')
    expect(JSON.parse(readFileSync(lockFileOf(session), 'utf8'))).toMatchObject({ pid: process.pid, command: 'stride trace --launch ./a' })
    expect(() => lockSessionForRecording(session, 'stride trace --launch ./b')).toThrow(new RegExp(`s\\.stride is being written by pid ${process.pid} \\(stride trace --launch \\./a, since `))
    expect(() => lockSessionForRuns(session, 'stride simulate')).toThrow(/being written by pid \d+/)
    expect(readdirSync(d).sort()).toEqual(['s.stride.lock'])
    lock.release()
    expect(readdirSync(d)).toEqual([])
  })

  it('an empty lock (a writer between creating and writing it, as an older Stride did) still refuses, saying so', () => {
    const d = dir()
    const session = join(d, 's.stride')
    writeFileSync(lockFileOf(session), '')
    expect(() => lockSessionForRecording(session, 'stride trace')).toThrow(/being written by another Stride \(its lock is being written\)/)
  })
})

/**
 * Issue 51, items 7, 8 and 10: integer options in decimal digits only, one value per cache
 * setting, no empty function list, input files read boundedly (never a device or a FIFO), and
 * every error one line of bounded length, without a stack.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { parseCacheSpec, parseTlbSpec } from '../../shared/sizes'
import { StrideError } from '../../shared/errors'
import { positiveInt } from './args'
import { errorLine, MAX_ERROR_LINE } from './error-line'
import { functionsFlag } from './function-list'
import { readInputFile } from './input-file'

const dir = mkdtempSync(join(tmpdir(), 'stride-strict-'))

describe('integer options', () => {
  it('0x8, 8e0, 8.0 and blanks are not 8', () => {
    for (const t of ['0x8', '8e0', '8.0', ' 8', '+8']) {
      expect(parseCacheSpec(`L1:32K:${t}:64`)).toMatch(/associativity ".*" must be a positive integer/)
      expect(parseTlbSpec(`T:${t}:4:4K`)).toMatch(/entries ".*" must be a positive integer/)
      expect(() => positiveInt(t, '--jobs', 'simulate')).toThrow(/--jobs ".*" must be a positive whole number in decimal digits/)
    }
    expect(parseCacheSpec('L1:32K:8:64')).toMatchObject({ assoc: 8, size: 32768 })
    expect(positiveInt('1.5M', '--max-events', 'trace')).toBe(1_500_000)
    expect(positiveInt('12', '--jobs', 'simulate')).toBe(12)
  })

  it('a cache option given two values is refused, not the last taken', () => {
    expect(parseCacheSpec('L1:32K:8:64:lru:wb,wt')).toMatch(/options "wb" and "wt" set the write policy twice; give one/)
    expect(parseCacheSpec('L1:32K:8:64:lru:wa,nwa')).toMatch(/set the write allocation twice/)
    expect(parseCacheSpec('L1:32K:8:64:lru:pf=next,pf=stride')).toMatch(/set the prefetcher twice/)
    expect(parseCacheSpec('L1:32K:8:64:lru:wt,wt')).toMatchObject({ writePolicy: 'write-through' })
  })

  it('--functions naming no function is refused, not a whole-program trace', () => {
    expect(() => functionsFlag(',,,')).toThrow(/--functions ",,," names no function; give them as F1,F2, or leave --functions out/)
    expect(() => functionsFlag(' ')).toThrow(StrideError)
    expect(functionsFlag(undefined)).toEqual([])
    expect(functionsFlag('a,b')).toEqual(['a', 'b'])
  })
})

describe('input files', () => {
  it('a device or a FIFO is refused without reading it; a large file by its size', () => {
    expect(() => readInputFile('/dev/zero', '--configs', 'simulate')).toThrow(/^stride simulate: --configs \/dev\/zero is not a regular file \(a FIFO, socket or device\); give a file\.$/)
    const fifo = join(dir, 'fifo.json')
    execFileSync('mkfifo', [fifo])
    expect(() => readInputFile(fifo, '--configs', 'simulate')).toThrow(/is not a regular file/)
    const big = join(dir, 'big.json')
    writeFileSync(big, Buffer.alloc(2048, 32))
    expect(() => readInputFile(big, '--configs', 'simulate', 1024)).toThrow(/holds 2048 bytes, more than the 1024 such a file may/)
    expect(() => readInputFile(join(dir, 'none.json'), '--configs', 'simulate')).toThrow(/none\.json does not exist/)
    writeFileSync(join(dir, 'ok.json'), '[]')
    expect(readInputFile(join(dir, 'ok.json'), '--configs', 'simulate')).toBe('[]')
  })
})

describe('error lines', () => {
  it('an echoed input is cut: one line of bounded length', () => {
    const specs = Array.from({ length: 10_000 }, (_, i) => `L${i}:32K:8:64`)
    const { line } = errorLine('simulate', new StrideError(`--cache ${specs.join(' --cache ')}: too many levels.`))
    expect(line.length).toBeLessThanOrEqual(MAX_ERROR_LINE)
    expect(line).toMatch(/^stride simulate: --cache L0:32K:8:64 .* characters cut\) … .*: too many levels\.$/)
  })

  it("SQLite's errors name the session and a fix, without a stack; other errors too", () => {
    const db = new Database(':memory:')
    let sqlite: unknown
    try {
      db.prepare('SELECT * FROM nowhere').all()
    } catch (e) {
      sqlite = e
    }
    db.close()
    const { line, status } = errorLine('info', sqlite, 's.stride')
    expect(line).toBe('stride info: session s.stride cannot be read or written (SQLite: no such table: nowhere); it may be damaged: re-trace the program.')
    expect(status).toBe(2)
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', path: '/tmp/out.bin' })
    expect(errorLine('export', full).line).toBe('stride export: /tmp/out.bin no space left on device; free some space or write elsewhere.')
    const range = errorLine('export', new RangeError('The value of "value" is out of range.'))
    expect(range.line).toMatch(/^stride export: internal error: RangeError: The value of "value" is out of range\.; please report it/)
    expect(range.line).not.toMatch(/\n|    at /)
  })
})

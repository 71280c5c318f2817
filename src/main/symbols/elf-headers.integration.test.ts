/**
 * The ELF header reader against readelf (what Stride ran before) on objects built here and on
 * the system's own: the same type, section names and build ID.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readElfHeaders } from './elf-headers'

const dir = mkdtempSync(join(tmpdir(), 'stride-elf-headers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cc(name: string, flags: string[]): string {
  const src = join(dir, `${name}.c`)
  writeFileSync(src, 'int table[64];\nint main(void) { return table[3]; }\n')
  const out = join(dir, name)
  const r = spawnSync('cc', [...flags, '-o', out, src], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return out
}

function readelf(path: string): { type: 'exec' | 'dyn' | null; sections: string[]; buildId: string | null } {
  const run = (flag: string) => spawnSync('readelf', [flag, '-W', path], { encoding: 'utf8' }).stdout
  const type = /Type:\s+(EXEC|DYN)\b/.exec(run('-h'))?.[1]
  // "[ 1] .interp  PROGBITS ...": the name follows the index; section 0 has none.
  const sections = [...run('-S').matchAll(/^\s*\[\s*(\d+)\]\s+(\S*)/gm)].map((m) => (m[1] === '0' ? '' : m[2]!)).map((n) => (n === 'NULL' ? '' : n))
  return { type: type === 'EXEC' ? 'exec' : type === 'DYN' ? 'dyn' : null, sections, buildId: /Build ID:\s*([0-9a-f]+)/.exec(run('-n'))?.[1] ?? null }
}

describe('ELF headers read from the file', () => {
  const objects = [
    ['a PIE built with debug information', () => cc('pie', ['-g', '-O2', '-fPIE', '-pie'])],
    ['a fixed-address executable', () => cc('nopie', ['-O1', '-no-pie'])],
    ['a stripped executable', () => cc('stripped', ['-O2', '-s'])],
    ['libc', () => '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    ['the dynamic loader', () => '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'],
    ['a system executable', () => '/usr/bin/env']
  ] as const

  for (const [what, path] of objects) {
    it(`agree with readelf on ${what}`, async () => {
      const file = path()
      const ours = await readElfHeaders(file)
      const theirs = readelf(file)
      expect(ours?.type).toBe(theirs.type)
      expect(ours?.buildId).toBe(theirs.buildId)
      // readelf -W prints long names whole; names with spaces do not occur in these objects.
      expect(ours?.sections).toEqual(theirs.sections)
    })
  }

  it('finds the debug line table of a -g build and none in a stripped one', async () => {
    expect((await readElfHeaders(cc('lines', ['-g'])))?.sections).toContain('.debug_line')
    expect((await readElfHeaders(cc('nolines', ['-s'])))?.sections).not.toContain('.debug_line')
  })

  it('reads the build ID from the note segments when the section headers are gone', async () => {
    const file = cc('nosections', ['-O1'])
    const expected = readelf(file).buildId
    expect(expected).not.toBeNull()
    const copy = join(dir, 'nosections-copy')
    copyFileSync(file, copy)
    const bytes = readFileSync(copy)
    bytes.writeBigUInt64LE(0n, 0x28) // e_shoff
    bytes.writeUInt16LE(0, 0x3c) // e_shnum
    writeFileSync(copy, bytes)
    expect(await readElfHeaders(copy)).toEqual({ type: 'dyn', sections: [], buildId: expected })
  })

  it('says null for what is not ELF, and survives a truncated file', async () => {
    const text = join(dir, 'script.sh')
    writeFileSync(text, '#!/bin/sh\necho hello\n')
    expect(await readElfHeaders(text)).toBeNull()
    const cut = join(dir, 'truncated')
    writeFileSync(cut, readFileSync(cc('whole', ['-O1'])).subarray(0, 200))
    const headers = await readElfHeaders(cut)
    expect(headers?.type).toBe('dyn')
    expect(headers?.sections).toEqual([])
    expect(headers?.buildId).toBeNull()
  })

  it('tells an object file (not an executable) by its type', async () => {
    const src = join(dir, 'unit.c')
    writeFileSync(src, 'int f(int x) { return x + 1; }\n')
    const obj = join(dir, 'unit.o')
    expect(spawnSync('cc', ['-c', '-o', obj, src]).status).toBe(0)
    expect((await readElfHeaders(obj))?.type).toBeNull()
  })
})

import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPath, defaultRoots, listDirectory } from './file-browser'

const base = mkdtempSync(join(tmpdir(), 'stride-browse-'))
const home = join(base, 'home')
const elsewhere = join(base, 'elsewhere')
mkdirSync(join(home, 'src'), { recursive: true })
mkdirSync(elsewhere)
writeFileSync(join(home, 'prog'), '\x7fELF')
chmodSync(join(home, 'prog'), 0o755)
writeFileSync(join(home, 'notes.txt'), 'x')
writeFileSync(join(home, 'run.stride'), 'x')
writeFileSync(join(home, '.hidden'), 'x')
writeFileSync(join(elsewhere, 'tool'), '\x7fELF')
chmodSync(join(elsewhere, 'tool'), 0o700)
symlinkSync(elsewhere, join(home, 'linked'))
const roots = [{ label: 'Home', path: home }]
const isRoot = process.getuid?.() === 0

describe('file browser (web mode)', () => {
  it('lists folders first, then what the purpose can use', () => {
    const programs = listDirectory(null, 'program', roots)
    expect(programs.entries.map((e) => e.name)).toEqual(['linked', 'src', 'prog'])
    expect(listDirectory(home, 'session', roots).entries.map((e) => e.name)).toEqual(['linked', 'src', 'run.stride'])
    expect(listDirectory(join(home, 'src'), 'program', roots).parent).toBe(home)
  })

  it('browses any readable folder, outside home too: .., a link, the file system root', () => {
    expect(listDirectory(home, 'program', roots).parent).toBe(base)
    expect(listDirectory(join(home, '..'), 'program', roots).path).toBe(base)
    expect(listDirectory(join(home, 'linked'), 'program', roots).entries.map((e) => e.name)).toEqual(['tool'])
    expect(listDirectory('/usr/bin', 'program', roots).entries.some((e) => e.name === 'env')).toBe(true)
    const top = listDirectory('/', 'program', roots)
    expect(top.parent).toBeNull()
    expect(top.entries.some((e) => e.name === 'usr' && e.kind === 'dir')).toBe(true)
    expect(defaultRoots().map((r) => r.label)).toContain('Computer')
  })

  it('refuses, in one line, what does not exist, is not a folder, or is not absolute', () => {
    expect(() => listDirectory(join(home, 'nope'), 'program', roots)).toThrow(/does not exist/)
    expect(() => listDirectory(join(home, 'notes.txt'), 'program', roots)).toThrow(/is not a folder/)
    expect(() => listDirectory('home/src', 'program', roots)).toThrow(/not an absolute path/)
  })

  it.skipIf(isRoot)('refuses a folder the user may not read', () => {
    const locked = join(base, 'locked')
    mkdirSync(locked, { mode: 0o000 })
    expect(() => listDirectory(locked, 'program', roots)).toThrow(/cannot be read/)
    expect(() => checkPath(locked, 'program')).toThrow(/may not read/)
  })
})

describe('a typed path (checkPath)', () => {
  it('accepts a program anywhere the user can run it, resolving links', () => {
    expect(checkPath('/usr/bin/env', 'program')).toEqual({ path: expect.stringMatching(/\/env$/), kind: 'file' })
    expect(checkPath(join(home, 'linked', 'tool'), 'program')).toEqual({ path: join(elsewhere, 'tool'), kind: 'file' })
    expect(checkPath(join(home, 'prog'), 'program').kind).toBe('file')
  })

  it('a folder is one to go into', () => {
    expect(checkPath(elsewhere, 'program')).toEqual({ path: elsewhere, kind: 'dir' })
    expect(checkPath('/tmp', 'session').kind).toBe('dir')
  })

  it('refuses, in one line each: relative, missing, not a regular file, not executable', () => {
    const oneLine = (f: () => unknown, re: RegExp) => {
      expect(f).toThrow(re)
      try {
        f()
      } catch (e) {
        expect((e as Error).message).not.toContain('\n')
      }
    }
    oneLine(() => checkPath('bin/true', 'program'), /not an absolute path/)
    oneLine(() => checkPath(join(base, 'missing'), 'program'), /does not exist/)
    oneLine(() => checkPath('/dev/null', 'program'), /not a regular file/)
    oneLine(() => checkPath(join(home, 'notes.txt'), 'program'), /is not executable/)
    expect(checkPath(join(home, 'run.stride'), 'session')).toEqual({ path: join(home, 'run.stride'), kind: 'file' })
  })
})

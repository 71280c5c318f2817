import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listDirectory } from './file-browser'

const base = mkdtempSync(join(tmpdir(), 'stride-browse-'))
const home = join(base, 'home')
const secret = join(base, 'secret')
mkdirSync(join(home, 'src'), { recursive: true })
mkdirSync(secret)
writeFileSync(join(home, 'prog'), '\x7fELF')
chmodSync(join(home, 'prog'), 0o755)
writeFileSync(join(home, 'notes.txt'), 'x')
writeFileSync(join(home, 'run.stride'), 'x')
writeFileSync(join(home, '.hidden'), 'x')
writeFileSync(join(secret, 'key'), 'x')
symlinkSync(secret, join(home, 'escape'))
const roots = [{ label: 'Home', path: home }]

describe('file browser (web mode)', () => {
  it('lists folders first, then what the purpose can use', () => {
    const programs = listDirectory(null, 'program', roots)
    expect(programs.entries.map((e) => e.name)).toEqual(['src', 'prog'])
    expect(programs.parent).toBeNull()
    expect(listDirectory(home, 'session', roots).entries.map((e) => e.name)).toEqual(['src', 'run.stride'])
    expect(listDirectory(join(home, 'src'), 'program', roots).parent).toBe(home)
  })

  it('never leaves the roots: not by .., not through a symlink', () => {
    expect(() => listDirectory(join(home, '..'), 'program', roots)).toThrow(/outside the folders Stride may browse/)
    expect(() => listDirectory(join(home, 'escape'), 'program', roots)).toThrow(/outside the folders Stride may browse/)
    expect(() => listDirectory('/etc', 'program', roots)).toThrow(/outside/)
    expect(() => listDirectory(join(home, 'nope'), 'program', roots)).toThrow(/does not exist/)
    expect(() => listDirectory(join(home, 'notes.txt'), 'program', roots)).toThrow(/is not a folder/)
  })
})

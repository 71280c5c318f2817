/**
 * Issue 51 item 10: a folder or session Stride cannot write is said in one line with its path
 * and a fix (SQLite's "unable to open database file" named neither). Tests may run as root,
 * where a chmod stops no write: a probe write tells, and then the file or folder is made
 * immutable (chattr +i) instead; /sys stands for an unwritable folder where neither works.
 * Item 7's export onto a full disk: a small file system in a private mount namespace.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, example, fixedEnv, run, stride, strideOk, tempDir } from '../testing/cli-runner'

const dir = tempDir('read-only')
const env = fixedEnv(dir)
const session = join(dir, 'conflict.stride')
const immutable: string[] = []

/** Whether writing into the folder `folder` fails (a probe file is created and removed). */
function unwritable(folder: string): boolean {
  const probe = join(folder, '.probe')
  try {
    writeFileSync(probe, '')
    rmSync(probe)
    return false
  } catch {
    return true
  }
}

/** Whether appending (nothing) to the file `file` fails. */
function fileUnwritable(file: string): boolean {
  try {
    writeFileSync(file, '', { flag: 'a' })
    return false
  } catch {
    return true
  }
}

/**
 * Makes `path` (a file or folder) read-only for this process: chmod, else (root) chattr +i.
 * False when neither stops a write here (a file system without the immutable flag).
 */
function makeReadOnly(path: string, folder: boolean): boolean {
  chmodSync(path, folder ? 0o555 : 0o444)
  const check = () => (folder ? unwritable(path) : fileUnwritable(path))
  if (check()) return true
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' })
    immutable.push(path)
  } catch {
    return false
  }
  return check()
}

function oneLine(r: { status: number | null; stdout: string; stderr: string }): string {
  expect(r.status).toBe(2)
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(r.stderr).not.toMatch(/\n\s+at |internal error|unable to open database file/)
  return lines[0]!
}

describe('folders and sessions Stride cannot write', () => {
  beforeAll(() => {
    strideOk(['trace', '--out', session, '--launch', example('conflict')], env)
    strideOk(['simulate', session, '--cache', 'L1:32K:8:64'], env)
  }, 120_000)

  afterAll(() => {
    for (const p of immutable) execFileSync('chattr', ['-i', p], { stdio: 'ignore' })
  })

  it('trace --out in a read-only folder: one line with the path and a fix, nothing left', () => {
    const folder = join(dir, 'ro-out')
    mkdirSync(folder)
    // /sys refuses a new file to everyone, root included.
    const where = makeReadOnly(folder, true) ? folder : '/sys'
    const out = join(where, 'x.stride')
    const line = oneLine(stride(['trace', '--out', out, '--launch', example('conflict')], env))
    expect(line).toContain(where)
    expect(line).toMatch(/make its folder writable or choose another session file/)
    expect(existsSync(out)).toBe(false)
    if (where === folder) expect(readdirSync(folder)).toEqual([])
  }, 60_000)

  it('export --out in a read-only folder: one line with the path and a fix', () => {
    const folder = join(dir, 'ro-export')
    mkdirSync(folder)
    const where = makeReadOnly(folder, true) ? folder : '/sys'
    const line = oneLine(stride(['export', session, '--out', join(where, 'x.bin')], env))
    expect(line).toContain(join(where, 'x.bin'))
    expect(line).toMatch(/choose a writable folder/)
  })

  it('simulate on a read-only session file, or one in a read-only folder: one line; read-only commands still read it', (ctx) => {
    const folder = join(dir, 'ro-session')
    mkdirSync(folder)
    const file = join(folder, 's.stride')
    copyFileSync(session, file)
    if (!makeReadOnly(file, false)) ctx.skip('neither chmod nor chattr +i stops a write to a file here (root on a file system without the immutable flag)')
    const line = oneLine(stride(['simulate', file, '--cache', 'L1:16K:4:64'], env))
    expect(line).toBe(`stride simulate: Session "${file}" cannot be written (read-only file or folder); copy it somewhere writable to simulate or store runs in it.`)
    expect(strideOk(['report', file], env)).toMatch(/^run 1: L1/)
    expect(strideOk(['info', file], env)).toContain(file)

    const inFolder = join(dir, 'ro-folder')
    mkdirSync(inFolder)
    const other = join(inFolder, 's.stride')
    copyFileSync(session, other)
    if (!makeReadOnly(inFolder, true)) ctx.skip('neither chmod nor chattr +i stops a write in a folder here')
    expect(oneLine(stride(['simulate', other, '--cache', 'L1:16K:4:64'], env))).toMatch(new RegExp(`^stride simulate: Session "${other}" cannot be written \\(read-only file or folder\\); copy it somewhere writable`))
    expect(strideOk(['report', other], env)).toMatch(/^run 1: L1/)
    expect(readdirSync(inFolder)).toEqual(['s.stride'])
  }, 60_000)

  it('export onto a full disk: one line with the path and a fix, no partial file left', (ctx) => {
    const folder = join(dir, 'full')
    mkdirSync(folder)
    // A 256 KiB file system of its own, in a private mount namespace (as root, or as a user
    // where user namespaces are allowed); the export needs 2.2 MB.
    const script = 'mount -t tmpfs -o size=256k none "$1" || exit 99; "$2" "$3" export "$4" --out "$1/x.bin"; s=$?; echo "left: $(ls -A "$1")"; exit $s'
    let r = run('unshare', ['-m', 'sh', '-c', script, 'sh', folder, process.execPath, CLI, session], env)
    if (r.status === 99 || (r.status === 1 && /unshare/.test(r.stderr))) r = run('unshare', ['-rm', 'sh', '-c', script, 'sh', folder, process.execPath, CLI, session], env)
    if (r.status === 99 || /unshare/.test(r.stderr)) ctx.skip(`no private mount namespace for a small file system here (${r.stderr.trim().slice(0, 120)})`)
    const line = oneLine(r)
    expect(line).toBe(`stride export: cannot write ${join(folder, 'x.bin')} (no space left on device); nothing was written: free some space or choose another --out.`)
    expect(r.stdout.trim()).toBe('left:')
  })
})

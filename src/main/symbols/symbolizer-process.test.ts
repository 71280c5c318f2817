/** The thread's llvm-symbolizer: answers as one run per object does, in order, and lets Node exit. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'

const hasSymbolizer = spawnSync('sh', ['-c', 'command -v llvm-symbolizer']).status === 0
const dir = mkdtempSync(join(tmpdir(), 'stride symbolizer ')) // a space in the path, on purpose
const source = join(dir, 'prog.c')
writeFileSync(source, 'static inline int twice(int x) { return 2 * x; }\nint work(int *a, int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) s += twice(a[i]);\n  return s;\n}\nint main(void) { int a[4] = {1, 2, 3, 4}; return work(a, 4) == 20 ? 0 : 1; }\n')
const programs = ['-O0', '-O2'].map((flag) => {
  const out = join(dir, `prog${flag}`)
  const r = spawnSync('cc', ['-g', flag, '-o', out, source], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return out
})
/** Every byte of main's and work's code, as link addresses. */
const addresses = (program: string) => {
  const nm = spawnSync('nm', ['-S', program], { encoding: 'utf8' }).stdout
  const out: number[] = []
  for (const m of nm.matchAll(/^([0-9a-f]+) ([0-9a-f]+) T (main|work)$/gm)) for (let a = 0; a < parseInt(m[2]!, 16); a++) out.push(parseInt(m[1]!, 16) + a)
  return out
}
/** What one llvm-symbolizer run with --obj answers. */
const oneRun = (program: string, list: number[]) =>
  spawnSync('llvm-symbolizer', ['--output-style=JSON', '--inlines', `--obj=${program}`], { input: list.map((a) => `0x${a.toString(16)}\n`).join(''), encoding: 'utf8' }).stdout.trim().split('\n')

describe.runIf(hasSymbolizer)('the thread\'s llvm-symbolizer', () => {
  const path = process.env.PATH
  afterEach(() => {
    process.env.PATH = path
    vi.resetModules()
  })

  it('answers requests for several objects, asked at once, as one run per object does', async () => {
    const { symbolizeLines } = await import('./symbolizer-process')
    const lists = programs.map(addresses)
    expect(lists.every((l) => l.length > 10)).toBe(true)
    const [a, b, again] = await Promise.all([symbolizeLines(programs[0]!, lists[0]!), symbolizeLines(programs[1]!, lists[1]!), symbolizeLines(programs[0]!, lists[0]!.slice(3, 9))])
    expect(a).toEqual(oneRun(programs[0]!, lists[0]!))
    expect(b).toEqual(oneRun(programs[1]!, lists[1]!))
    expect(again).toEqual(oneRun(programs[0]!, lists[0]!.slice(3, 9)))
    // The -O2 build's loop body is twice() inlined into work(): two levels.
    expect(b.some((line) => (JSON.parse(line) as { Symbol: unknown[] }).Symbol.length === 2)).toBe(true)
  })

  it('keeps no handle that would keep Node running once answered', async () => {
    const { symbolizeLines } = await import('./symbolizer-process')
    const before = process.getActiveResourcesInfo().length
    await symbolizeLines(programs[0]!, addresses(programs[0]!).slice(0, 3))
    expect(process.getActiveResourcesInfo().length).toBeLessThanOrEqual(before)
  })

  it('ends when told, after answering, and is gone (exited and reaped) when that resolves', async () => {
    const { endSymbolizer, symbolizeLines } = await import('./symbolizer-process')
    // Other tests' module instances may still have theirs (each ends after idle seconds).
    const children = () => spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes('llvm-symbol')).map((l) => l.trim().split(/\s+/)[0])
    const before = children()
    const asked = symbolizeLines(programs[1]!, addresses(programs[1]!).slice(0, 5))
    const ours = children().filter((pid) => !before.includes(pid))
    expect(ours).toHaveLength(1)
    const ended = endSymbolizer()
    expect(await asked).toEqual(oneRun(programs[1]!, addresses(programs[1]!).slice(0, 5)))
    await ended
    expect(children()).not.toContain(ours[0])
    await endSymbolizer() // nothing running: resolves at once
  })

  it('a request made while the process ends goes to a new one and is answered', async () => {
    const { endSymbolizer, symbolizeLines } = await import('./symbolizer-process')
    const list = addresses(programs[0]!).slice(0, 4)
    await symbolizeLines(programs[0]!, list)
    const ending = endSymbolizer()
    const asked = symbolizeLines(programs[0]!, list) // before the first one has exited
    expect(await asked).toEqual(oneRun(programs[0]!, list))
    await ending
    await endSymbolizer()
  })

  it('a process that dies fails what it was asked; the next request starts another', async () => {
    const fake = mkdtempSync(join(tmpdir(), 'stride-fake-symbolizer-'))
    writeFileSync(join(fake, 'llvm-symbolizer'), '#!/bin/sh\nread line\nexit 3\n', { mode: 0o755 })
    process.env.PATH = `${fake}:${path}`
    const { symbolizeLines } = await import('./symbolizer-process')
    await expect(symbolizeLines(programs[0]!, [0x1000, 0x1004])).rejects.toThrow(/llvm-symbolizer ended \(exit 3\) before answering/)
    process.env.PATH = path
    expect(await symbolizeLines(programs[0]!, addresses(programs[0]!).slice(0, 2))).toEqual(oneRun(programs[0]!, addresses(programs[0]!).slice(0, 2)))
  })

  it('says how to install it when it is missing', async () => {
    process.env.PATH = mkdtempSync(join(tmpdir(), 'stride-empty-path-'))
    const { symbolizeLines } = await import('./symbolizer-process')
    await expect(symbolizeLines(programs[0]!, [0x1000])).rejects.toMatchObject({ code: 'tool-missing', message: expect.stringMatching(/apt-get install llvm/) })
  })
})

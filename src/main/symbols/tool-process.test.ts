import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { startTool } from './tool-process'
import { runTool } from './run-tool'

const readAll = (s: NodeJS.ReadableStream) =>
  new Promise<string>((resolve) => {
    const parts: Buffer[] = []
    s.on('data', (b: Buffer) => parts.push(b))
    s.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
  })

describe('startTool (posix_spawn)', () => {
  it('pipes stdin to the tool and its stdout and stderr back, and reports its exit code', async () => {
    const child = startTool('sh', ['-c', 'cat; echo oops >&2; exit 3'])
    const [out, err] = [readAll(child.stdout), readAll(child.stderr)]
    child.stdin.end('hello\nworld\n')
    expect(await child.exited).toEqual({ code: 3, signal: null })
    expect(await out).toBe('hello\nworld\n')
    expect(await err).toBe('oops\n')
  })

  it('passes the environment it is given, and only that', async () => {
    const child = startTool('sh', ['-c', 'echo "$STRIDE_A|${HOME-unset}"'], { PATH: process.env.PATH, STRIDE_A: 'a b' })
    const out = readAll(child.stdout)
    void readAll(child.stderr)
    child.stdin.end()
    await child.exited
    expect(await out).toBe('a b|unset\n')
  })

  it('gives the tool default signal handling (Node ignores SIGPIPE; a tool must not inherit that)', async () => {
    const child = startTool('sh', ['-c', 'kill -PIPE $$; echo still-here'])
    const out = readAll(child.stdout)
    void readAll(child.stderr)
    child.stdin.end()
    expect(await child.exited).toEqual({ code: null, signal: 'SIGPIPE' })
    expect(await out).toBe('')
  })

  it('reports a signal that ends it, and kill() stops a running tool', async () => {
    const child = startTool('sleep', ['30'])
    void readAll(child.stdout)
    void readAll(child.stderr)
    child.kill('SIGKILL')
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' })
    child.kill() // reaped: does nothing, and does not throw
  })

  it('throws ENOENT for a tool that is not installed, leaving no descriptor open', () => {
    const open = () => readdirSync('/proc/self/fd').length
    const before = open()
    for (let i = 0; i < 20; i++) expect(() => startTool('stride-no-such-tool', [])).toThrow(expect.objectContaining({ code: 'ENOENT' }))
    expect(open()).toBe(before)
  })

  it('keeps many tools apart when they run at once', async () => {
    const outputs = await Promise.all(Array.from({ length: 12 }, (_, i) => runTool('sh', ['-c', `head -c ${1000 + i} /dev/zero | tr '\\0' x`])))
    expect(outputs.map((o) => o.length)).toEqual(Array.from({ length: 12 }, (_, i) => 1000 + i))
  })
})

describe('runTool', () => {
  it('returns stdout, and names a missing tool and how to install it', async () => {
    expect(await runTool('sh', ['-c', 'printf %s "$STRIDE_X"'], undefined, { STRIDE_X: 'ok' })).toBe('ok')
    await expect(runTool('stride-no-such-tool', [])).rejects.toThrow(/not installed; install binutils/)
    await expect(runTool('sh', ['-c', 'echo bad >&2; exit 2'])).rejects.toThrow(/failed \(exit 2\): bad/)
  })

  it('reads large outputs whole, and large inputs', async () => {
    const input = 'x'.repeat(3 << 20)
    const out = await runTool('cat', [], input)
    expect(out.length).toBe(input.length)
  })
})

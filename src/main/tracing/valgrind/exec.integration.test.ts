/**
 * Issue 51 item 5: a program that execs another is replaced by it, and Valgrind (without
 * --trace-children) runs the new one natively: the tool's buffered records must be out before
 * the exec, and the session says the recording ended there.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, sessionInfo, stride, strideOk, tempDir } from '../../testing/cli-runner'

const dir = tempDir('tool-exec')
const env = fixedEnv(dir)
const N = 100_000

describe('a traced program that execs another', () => {
  const program = join(dir, 'exec')
  const cc = spawnSync('cc', ['-g', '-O2', '-o', program, join(__dirname, 'fixtures', 'exec.c')], { encoding: 'utf8' })

  it('keeps every access made before execve and says the recording ended there', () => {
    expect(cc.status, cc.stderr).toBe(0)
    const fill = (session: string) => sessionInfo(session, env).points.filter((p) => p.function === 'fill').reduce((n, p) => n + p.accesses, 0)
    const plain = join(dir, 'plain.stride')
    const execd = join(dir, 'execd.stride')
    strideOk(['trace', '--functions', 'fill', '--out', plain, '--launch', program, 'noexec'], env)
    const r = stride(['trace', '--functions', 'fill', '--out', execd, '--launch', program], env)
    expect(r.status, r.stderr).toBe(0)
    // fill: N stores through a volatile pointer, and its ret's load.
    expect(fill(plain)).toBe(N + 1)
    expect(fill(execd)).toBe(N + 1)
    const s = sessionInfo(execd, env)
    expect(s).toMatchObject({ partial: false, stopReason: 'completed' })
    expect(s.stopMessage).toMatch(/the program exec'd another \(execve\): the recording ended there/)
    expect(s.stopMessage).not.toMatch(/\n/)
    expect(r.stderr).toMatch(/^stride trace: note: the program exec'd another \(execve\): the recording ended there.*\.$/m)
  })
})

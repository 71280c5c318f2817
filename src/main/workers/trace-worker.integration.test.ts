/**
 * The trace worker starts Valgrind before it creates the session: when the session cannot be
 * created, the user gets the reason and the program is not left running under Valgrind.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../testing/cli-runner'
import { runTraceWorker } from './run-worker'

const dir = tempDir('trace-worker')

function running(program: string): boolean {
  return spawnSync('pgrep', ['-f', program], { encoding: 'utf8' }).stdout.trim() !== ''
}

describe('the trace worker', () => {
  it('stops the tool it started when the session cannot be created', async () => {
    const src = join(dir, 'sleeper.c')
    writeFileSync(src, '#include <unistd.h>\nint main(void) { sleep(20); return 0; }\n')
    const program = join(dir, 'sleeper-unique-name')
    expect(spawnSync('cc', ['-O1', '-o', program, src]).status).toBe(0)
    const handle = runTraceWorker(
      { program, args: [], functions: [], maxEvents: null, maxSeconds: null, out: join(src, 's.stride') /* under a file: no folder can be made there */, trackHeap: false, followCalls: false, afterLimit: 'detach', stdio: 'pipe' },
      () => {}
    )
    await expect(handle.result).rejects.toThrow(/EEXIST|ENOTDIR/)
    // The kill is sent before the error is posted; the process may take a moment to go.
    for (let i = 0; i < 50 && running(program); i++) await new Promise((r) => setTimeout(r, 100))
    expect(running(program)).toBe(false)
  })
})

/**
 * The trace worker starts Valgrind before it creates the session: when the session cannot be
 * created, the user gets the reason and the program is not left running under Valgrind. It is
 * started before its trace is known (a spare), and a stop sent at once still stops the trace.
 * It leaves no child process behind, and a finished session with its statics cache; what it
 * says it stored is what the session says.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { example, tempDir } from '../testing/cli-runner'
import { runTraceWorker, warmTraceWorker } from './run-worker'
import { openSessionDb, readSessionInfo } from '../store/session-reader'
import { readStaticsCache } from '../store/statics-cache'
import { staticsIdentity } from '../store/statics-identity'
import { readPointColumns } from '../store/point-columns'
import { readTouches } from '../store/touches'

const dir = tempDir('trace-worker')

function running(program: string): boolean {
  return spawnSync('pgrep', ['-f', program], { encoding: 'utf8' }).stdout.trim() !== ''
}

function sleeper(name: string): string {
  const src = join(dir, `${name}.c`)
  writeFileSync(src, '#include <unistd.h>\nint main(void) { sleep(20); return 0; }\n')
  const program = join(dir, name)
  expect(spawnSync('cc', ['-O1', '-o', program, src]).status).toBe(0)
  return program
}

async function gone(program: string): Promise<boolean> {
  // The kill is sent before the worker answers; the process may take a moment to go.
  for (let i = 0; i < 50 && running(program); i++) await new Promise((r) => setTimeout(r, 100))
  return !running(program)
}

const input = (program: string, out: string) => ({ program, args: [], functions: [], maxEvents: null, maxSeconds: null, out, trackHeap: false, followCalls: false, afterLimit: 'detach' as const, stdio: 'pipe' as const })

describe('the trace worker', () => {
  it('a spare started ahead runs the next trace, and the one after gets a worker of its own', async () => {
    warmTraceWorker(true)
    await new Promise((r) => setTimeout(r, 500)) // the spare has booted and loaded its modules
    for (const name of ['spare', 'fresh']) {
      const done = await runTraceWorker(input(example('conflict'), join(dir, `${name}.stride`)), () => {}).result
      expect(done.events).toBeGreaterThan(1000)
      expect(done.stopReason).toBe('completed')
      // It ends with its statics cache, equal to what its tables read.
      const db = openSessionDb(join(dir, `${name}.stride`), { readonly: true })
      const cache = readStaticsCache(db, staticsIdentity(db)!)
      expect(cache?.columns()).toEqual(readPointColumns(db))
      expect(cache?.touches()).toEqual(readTouches(db))
      // What it says it stored (the CLI's summary line prints it) is what the session says.
      const info = readSessionInfo(db, join(dir, `${name}.stride`))
      const stored = Object.fromEntries(Object.keys(done.stored).map((k) => [k, info[k as keyof typeof info]]))
      expect(done.stored).toEqual(stored)
      db.close()
    }
    // The worker's tools have exited and were reaped before it ended: a long-running app
    // would otherwise collect a zombie llvm-symbolizer per trace.
    const children = spawnSync('ps', ['-o', 'stat=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout
    expect(children.split('\n').filter((l) => /llvm-symbol|defunct|^Z/.test(l.trim()))).toEqual([])
  })

  it('a stop sent while the worker boots cancels the trace and stops the program', async () => {
    const program = sleeper('sleeper-stopped-early')
    const handle = runTraceWorker(input(program, join(dir, 'stopped.stride')), () => {})
    // The worker exists once its slot is taken (a tick) and boots for tens of milliseconds: the
    // stop waits behind the start, and must still reach the trace.
    await new Promise((r) => setTimeout(r, 20))
    handle.stop()
    const done = await handle.result
    expect([done.stopReason, done.events]).toEqual(['cancelled', 0])
    expect(await gone(program)).toBe(true)
  })

  it('a trace whose input cannot be sent to its worker fails in its result; never an unhandled rejection or a trace that never settles', async () => {
    const unhandled: unknown[] = []
    const note = (e: unknown) => void unhandled.push(e)
    process.on('unhandledRejection', note)
    try {
      const handle = runTraceWorker({ ...input(example('micro'), join(dir, 'never.stride')), notData: () => 0 } as never, () => {})
      await expect(handle.result).rejects.toThrow(/the trace could not be handed to its worker \(.*could not be cloned/)
      await new Promise((r) => setTimeout(r, 50))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', note)
    }
  }, 30_000)

  it('stops the tool it started when the session cannot be created', async () => {
    const program = sleeper('sleeper-unique-name')
    const handle = runTraceWorker(
      { program, args: [], functions: [], maxEvents: null, maxSeconds: null, out: join(dir, 'sleeper-unique-name.c', 's.stride') /* under a file: no folder can be made there */, trackHeap: false, followCalls: false, afterLimit: 'detach', stdio: 'pipe' },
      () => {}
    )
    await expect(handle.result).rejects.toThrow(/EEXIST|ENOTDIR/)
    expect(await gone(program)).toBe(true)
  })
})

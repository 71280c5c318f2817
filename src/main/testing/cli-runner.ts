/** Helpers for integration tests: run the built CLI and other tools with one fixed environment. */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export const ROOT = resolve(__dirname, '..', '..', '..')
export const CLI = join(ROOT, 'out', 'main', 'cli.js')
export const EXAMPLES = join(ROOT, 'resources', 'examples', 'build')

/**
 * One environment for every traced run: a program's stack addresses depend on its argv and
 * environment, so Stride's trace and Cachegrind's run must see exactly the same ones.
 */
export function fixedEnv(home: string): NodeJS.ProcessEnv {
  // One cache for every test's HOME: Stride's Valgrind tool is built once per run, not per file.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, STRIDE_HOME: join(home, 'stride'), STRIDE_CACHE: join(tmpdir(), 'stride-test-cache'), LANG: 'C' }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `stride-${prefix}-`))
}

export interface RunResult {
  status: number | null
  stdout: string
  stderr: string
}

export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): RunResult {
  const r = spawnSync(cmd, args, { env, cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  if (r.error) throw r.error
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

export function stride(args: string[], env: NodeJS.ProcessEnv): RunResult {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`)
  return run(process.execPath, [CLI, ...args], env)
}

/** Runs the CLI and fails the test with its stderr when it does not succeed. */
export function strideOk(args: string[], env: NodeJS.ProcessEnv): string {
  const r = stride(args, env)
  if (r.status !== 0) throw new Error(`stride ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return r.stdout
}

export function example(name: string): string {
  const p = join(EXAMPLES, name)
  if (!existsSync(p)) throw new Error(`${p} is missing: run "npm run examples" first`)
  return p
}

/** What `stride info SESSION --json` prints, as far as the tests read it. */
export interface SessionInfoJson {
  events: number
  partial: boolean
  stopReason: string
  stopMessage: string | null
  storedBytes: number
  hasDebugInfo: boolean
  programExit: { code: number | null; signal: string | null } | null
  recorder: string | null
  threads: number | null
  points: Array<{ id: string; function: string | null; file: string | null; line: number | null; accesses: number }>
}

/** `stride info SESSION --json`, parsed. */
export function sessionInfo(session: string, env: NodeJS.ProcessEnv): SessionInfoJson {
  return JSON.parse(strideOk(['info', session, '--json'], env)) as SessionInfoJson
}

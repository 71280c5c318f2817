// What the corpus benches share (corpus.mjs, sweep.mjs): their arguments (R, then program
// names), the corpus built and filtered, a work folder with its own STRIDE_HOME, and commands
// timed through /usr/bin/time.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { corpusDir, prepareCorpus } from './corpus-programs.mjs'

export const root = join(import.meta.dirname, '..')
export const stride = join(root, 'bin', 'stride.js')

/** `node bench/NAME.mjs [R] [program ...]`: R (default 3), the corpus programs asked for (all by default), a work folder. */
export function corpusRun(name) {
  const args = process.argv.slice(2)
  const R = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 3
  const wanted = new Set(args)
  const corpus = corpusDir()
  const programs = prepareCorpus(corpus, (line) => console.log(line)).filter((p) => wanted.size === 0 || wanted.has(p.name))
  if (programs.length === 0) throw new Error(`no corpus program is named ${[...wanted].join(', ')}`)
  const work = mkdtempSync(join(tmpdir(), `stride-bench-${name}-`))
  const env = { ...process.env, STRIDE_HOME: join(work, 'home') }
  mkdirSync(env.STRIDE_HOME)

  /** Wall and CPU seconds and peak RSS (KiB) of one command, through /usr/bin/time (stderr's last line). */
  function timed(cmd, argv, { cwd = work, stdout = 'ignore' } = {}) {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', cmd, ...argv], { cwd, env, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', stdout, 'pipe'] })
    const last = r.stderr.trim().split('\n').pop() ?? ''
    if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (${r.status}): ${r.stderr.slice(-1500)}`)
    const [wall, user, sys, kb] = last.split(' ').map(Number)
    return { wall, cpu: user + sys, kb, out: r.stdout ?? '' }
  }
  return { R, corpus, programs, work, env, timed, done: () => rmSync(work, { recursive: true, force: true }) }
}

export const sh = (s) => `'${s.replaceAll("'", `'\\''`)}'`
/** The program's command line for sh, its output discarded (the programs write to stdout). */
export const commandLine = (p) => [p.program, ...p.args].map(sh).join(' ') + (p.stdin ? ` < ${sh(p.stdin)}` : '') + ' > /dev/null'
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

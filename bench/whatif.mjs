#!/usr/bin/env node
// "What if another cache?" answered two ways, side by side in one run, per example:
//   cachegrind  re-running the program under valgrind --tool=cachegrind for each cache
//   stride      tracing once, then `stride simulate` per cache on the stored trace
// Prints the times and the speed-up of a re-simulation over a Cachegrind re-run, and the
// simulator's accesses/s (wall time of `stride simulate`, including worker start-up and
// reading the session).
// Usage: npm run build && npm run examples && node bench/whatif.mjs [example ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const cli = join(root, 'out', 'main', 'cli.js')
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['conflict', 'reuse', 'micro', 'mult']
const caches = [
  ['L1:32K:8:64', '32768,8,64'],
  ['L1:128K:2:128', '131072,2,128'],
  ['L1:64K:4:64', '65536,4,64']
]
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-'))

function timed(cmd, args) {
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20 })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`)
  return { s: Number(process.hrtime.bigint() - t) / 1e9, out: r.stdout }
}

console.log('example          events  trace s  cg/run s  sim/run s  cg/sim  sim Maccesses/s')
for (const name of names) {
  const program = join(root, 'resources', 'examples', 'build', name)
  const session = join(dir, `${name}.stride`)
  const trace = timed(process.execPath, [cli, 'trace', '--launch', program, '--out', session])
  const events = Number(/^(\d+) events/.exec(trace.out)?.[1] ?? 0)
  let cg = 0
  let sim = 0
  for (const [spec, d1] of caches) {
    cg += timed('valgrind', ['--tool=cachegrind', '--cache-sim=yes', `--D1=${d1}`, `--cachegrind-out-file=${join(dir, 'cg.out')}`, program]).s
    sim += timed(process.execPath, [cli, 'simulate', session, '--cache', spec, '--cachegrind-compatible']).s
  }
  cg /= caches.length
  sim /= caches.length
  console.log(
    [
      name.padEnd(14),
      String(events).padStart(9),
      trace.s.toFixed(2).padStart(8),
      cg.toFixed(2).padStart(9),
      sim.toFixed(2).padStart(10),
      (cg / sim).toFixed(1).padStart(7),
      (events / sim / 1e6).toFixed(2).padStart(16)
    ].join(' ')
  )
}
rmSync(dir, { recursive: true, force: true })

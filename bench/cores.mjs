#!/usr/bin/env node
// What `stride simulate --cores` costs against the one hierarchy, side by side in one run on
// one session: bench/targets/threads.c (4 threads sweeping their own rows of a shared array and
// counting rows in adjacent elements: false sharing), traced once (function `sweep`), then R
// times each (default 5), alternating:
//   one         stride simulate S --cache L1:32K:8:64 --cache LL:8M:16:64 (the native core)
//   cores       stride simulate S --cores 4 --cache L1:32K:8:64 --cache LL:8M:16:64:lru:shared
//               (the recorded order; the TypeScript multi-core hierarchy plus the two passes of
//               the schedule-independent sharing detector)
//   interleave  the same with --interleave 1 (one pass over the trace per thread)
// Prints the accesses, each command's median wall time (the CLI as a user runs it: bin/stride.js),
// and the ratios to `one`.
// Usage: npm run build && node bench/cores.mjs [R] [ROUNDS]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const stride = join(root, 'bin', 'stride.js')
const R = Number(process.argv[2] ?? 5)
const rounds = process.argv[3] ?? '20'
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-cores-'))
try {
  const program = join(dir, 'threads')
  const cc = spawnSync('cc', ['-O1', '-g', '-pthread', '-o', program, join(root, 'bench', 'targets', 'threads.c')], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(`cannot build bench/targets/threads.c: ${cc.stderr}`)
  const session = join(dir, 'threads.stride')
  const run = (args) => {
    const t = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [stride, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 })
    if (r.status !== 0) throw new Error(`stride ${args.join(' ')} failed: ${r.stderr}`)
    return { s: Number(process.hrtime.bigint() - t) / 1e9, out: r.stdout }
  }
  run(['trace', '--functions', 'sweep', '--out', session, '--launch', program, '4', rounds])
  const events = JSON.parse(run(['info', session, '--json']).out).events
  const levels = ['--cache', 'L1:32K:8:64', '--cache', 'LL:8M:16:64']
  const shared = ['--cache', 'L1:32K:8:64', '--cache', 'LL:8M:16:64:lru:shared']
  const kinds = {
    one: ['simulate', session, ...levels, '--json'],
    cores: ['simulate', session, '--cores', '4', ...shared, '--json'],
    interleave: ['simulate', session, '--cores', '4', '--interleave', '1', ...shared, '--json']
  }
  const times = { one: [], cores: [], interleave: [] }
  let last = {}
  for (let i = 0; i < R; i++)
    for (const [k, args] of Object.entries(kinds)) {
      const r = run(args)
      times[k].push(r.s)
      last[k] = JSON.parse(r.out)
    }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const one = median(times.one)
  console.log(`threads.c, 4 threads, ${rounds} rounds: ${events.toLocaleString('en-US')} accesses; medians of ${R} runs (wall, the CLI as run)`)
  for (const k of Object.keys(kinds)) {
    const m = median(times[k])
    const co = last[k].coherence
    const extra = co ? `; coherence misses ${co.trueSharing + co.falseSharing} (false ${co.falseSharing})` : ''
    console.log(`  ${k.padEnd(10)} ${m.toFixed(2)} s  ${(m / one).toFixed(2)}x one  ${((m * 1e9) / events).toFixed(0)} ns/access${extra}`)
  }
  const est = last.cores.sharing.lines.reduce((s, l) => s + l.fineEstimate.falseSharing, 0)
  console.log(`  shared lines found: ${last.cores.sharing.lines.length} (${last.cores.sharing.variables.map((v) => v.variable).join(', ')}), fine-interleaving estimate ${est} false-sharing misses`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

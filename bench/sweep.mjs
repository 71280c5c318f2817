#!/usr/bin/env node
// A sweep of last levels on the real-program corpus, against the Cachegrind re-runs it replaces.
// Each corpus program is traced once, whole program, with Cachegrind's D1 and LL (as
// bench/corpus.mjs does); then, per round:
//   cg         valgrind --tool=cachegrind --LL=SIZE,16,64 per last level of the sweep (the D1 its own
//              default): a Cachegrind user's sweep is a re-run per cache; their sum
//   sweep      stride simulate S --config "D1;LL:SIZE:16:64" ... (one command, the same last levels,
//              the corpus's D1): the D1 is simulated once and each LL over what it lets through
//              (src/main/simulate/first-level-group.ts)
//   one        stride simulate S --cache D1 --cache LL:8M:16:64: one what-if, the unit a sweep is made of
// wall and CPU (user + system) seconds of the whole process tree; medians of R interleaved rounds.
// Usage: npm run build && node bench/sweep.mjs [R] [program ...]   (R defaults to 3)
import { spawnSync } from 'node:child_process'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { cachegrindLevels } from './corpus-programs.mjs'
import { commandLine, corpusRun, median, root, sh, stride } from './corpus-run.mjs'

const { R, programs, work, timed, done } = corpusRun('sweep')
/** The sweep's last levels: sizes of a desktop's L3 and beyond, 16-way, 64-byte lines. */
const SIZES = [1 << 20, 4 << 20, 8 << 20, 32 << 20]
const [d1, ll] = cachegrindLevels()
const spec = (size) => `LL:${size}:16:64`

const sessions = programs.map((p) => {
  const out = join(work, `${p.name}.stride`)
  const line = `${[stride, 'trace', '--out', out, '--force', '--cache', d1, '--cache', ll, '--launch', p.program, '--', ...p.args].map(sh).join(' ')}${p.stdin ? ` < ${sh(p.stdin)}` : ''} > /dev/null`
  timed('sh', ['-c', line], { cwd: p.cwd })
  return out
})

const results = programs.map(() => ({ cg: SIZES.map(() => []), sweep: [], one: [] }))
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim()
console.log(`${new Date().toISOString()}  Stride ${commit}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  ${(totalmem() / 2 ** 30).toFixed(0)} GiB  node ${process.version}`)
console.log(`D1 ${d1}; last levels ${SIZES.map((s) => `${s >> 20} MiB`).join(', ')} (16-way, 64 B); R = ${R} rounds, interleaved`)
for (let round = 0; round < R; round++) {
  programs.forEach((p, i) => {
    const res = results[i]
    SIZES.forEach((size, k) => res.cg[k].push(timed('sh', ['-c', `valgrind --tool=cachegrind --LL=${size},16,64 --cachegrind-out-file=/dev/null ${commandLine(p)} 2>/dev/null`], { cwd: p.cwd })))
    res.sweep.push(timed(stride, ['simulate', sessions[i], ...SIZES.flatMap((s) => ['--config', `${d1};${spec(s)}`])]))
    res.one.push(timed(stride, ['simulate', sessions[i], '--cache', d1, '--cache', spec(8 << 20)]))
    process.stderr.write(`round ${round + 1}: ${p.name} done\n`)
  })
}

const f2 = (x) => x.toFixed(2)
console.log('\nprogram     cg x4 wall  cg x4 cpu  sweep wall  sweep cpu  sweep/cg wall  sweep/cg cpu  one what-if wall  sweep/one')
programs.forEach((p, i) => {
  const r = results[i]
  const m = (xs, k) => median(xs.map((x) => x[k]))
  const cgWall = r.cg.reduce((a, runs) => a + m(runs, 'wall'), 0)
  const cgCpu = r.cg.reduce((a, runs) => a + m(runs, 'cpu'), 0)
  const swWall = m(r.sweep, 'wall'), swCpu = m(r.sweep, 'cpu'), oneWall = m(r.one, 'wall')
  console.log(
    [p.name.padEnd(10), f2(cgWall).padStart(11), f2(cgCpu).padStart(10), f2(swWall).padStart(11), f2(swCpu).padStart(10), f2(swWall / cgWall).padStart(14), f2(swCpu / cgCpu).padStart(13), f2(oneWall).padStart(17), f2(swWall / oneWall).padStart(10)].join(' ')
  )
})
done()

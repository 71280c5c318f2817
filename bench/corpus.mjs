#!/usr/bin/env node
// The real-program corpus: Stride against Cachegrind on programs nobody here wrote, side by side
// in one run, interleaved (round r runs every program's Cachegrind and Stride before round r+1),
// medians of R rounds, wall AND CPU time (user + system of the whole process tree: Stride's
// Node threads, its Valgrind child, Cachegrind).
//
// Programs (corpus-programs.mjs): Debian source packages fetched with `apt-get source` through
// a private apt configuration (a deb-src list made from this machine's own deb lines, its own
// lists folder: the machine's apt state is not touched) and built `-g -O2`, plus system
// binaries as they are (no debug information). Nothing of it is committed: it lives in the
// corpus folder ($STRIDE_CORPUS, default ~/.cache/stride-corpus), fetched and built on the
// first run, reused after.
//
// Per program and scope (whole program; --functions F where the program has symbols):
//   cachegrind  valgrind --tool=cachegrind (its default cache: the host's D1 and LL)
//   trace       stride trace --cache D1 --cache LL, the same two levels: trace + first simulation
//   advise      stride advise on the stored session
//   objects     stride objects --method exact on it
//   simulate    stride simulate with the same levels (a what-if), against a Cachegrind re-run
//   next        a second what-if on the same session (LL 8 MiB 16-way): where the first one
//               replayed the trace, it kept the first level this one follows
// Usage: npm run build && node bench/corpus.mjs [R] [program ...]   (R defaults to 3)
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { cachegrindLevels } from './corpus-programs.mjs'
import { commandLine, corpusRun, median, root, sh, stride } from './corpus-run.mjs'
import { programColumns } from './program-columns.mjs'

const { R, corpus, programs, work, timed, done } = corpusRun('corpus')

const levels = cachegrindLevels()
const cacheFlags = levels.flatMap((l) => ['--cache', l])

const cases = programs.flatMap((p) => [
  { p, scope: 'whole', functions: null },
  ...(p.functions ? [{ p, scope: p.functions, functions: p.functions }] : [])
])

function cachegrindRun(c) {
  return timed('sh', ['-c', `valgrind --tool=cachegrind --cachegrind-out-file=/dev/null ${commandLine(c.p)} 2>/dev/null`], { cwd: c.p.cwd })
}

function strideTrace(c, out) {
  // The program's standard input and output as in the Cachegrind run (sh redirects them).
  const traceArgs = ['trace', ...(c.functions ? ['--functions', c.functions] : []), '--out', out, '--force', ...cacheFlags, '--launch', c.p.program, '--', ...c.p.args]
  const line = `${[stride, ...traceArgs].map(sh).join(' ')}${c.p.stdin ? ` < ${sh(c.p.stdin)}` : ''} > ${sh(out + '.txt')}`
  const t = timed('sh', ['-c', line], { cwd: c.p.cwd })
  const summary = readFileSync(out + '.txt', 'latin1')
  return { ...t, events: Number(/(\d+) events, \d+ access points/.exec(summary)?.[1] ?? NaN) }
}

function strideCommand(argv) {
  return timed(stride, argv, { stdout: 'pipe' })
}

const results = cases.map(() => ({ cg: [], trace: [], advise: [], objects: [], simulate: [], next: [], rss: 0 }))

const valgrindVersion = spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).stdout.trim()
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim()
console.log(`${new Date().toISOString()}  Stride ${commit}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  ${(totalmem() / 2 ** 30).toFixed(0)} GiB  node ${process.version}  ${valgrindVersion}`)
console.log(`corpus ${corpus}; Cachegrind's hierarchy here: ${levels.join(' ')}; R = ${R} rounds, interleaved`)
for (let round = 0; round < R; round++) {
  cases.forEach((c, i) => {
    const session = join(work, `${c.p.name}-${i}.stride`)
    const res = results[i]
    res.cg.push(cachegrindRun(c))
    const t = strideTrace(c, session)
    res.trace.push(t)
    res.rss = Math.max(res.rss, t.kb)
    res.advise.push(strideCommand(['advise', session]))
    res.objects.push(strideCommand(['objects', session, '--method', 'exact']))
    res.simulate.push(strideCommand(['simulate', session, ...cacheFlags]))
    res.next.push(strideCommand(['simulate', session, '--cache', levels[0], '--cache', 'LL:8M:16:64']))
    process.stderr.write(`round ${round + 1}: ${c.p.name} ${c.scope} done\n`)
  })
}

const f2 = (x) => x.toFixed(2)
const columns = programColumns(cases)
console.log('\n' + columns.header('program      scope                       accesses  cg wall  cg cpu  trace wall  trace cpu  wall/cg  cpu/cg  advise s  objects s  simulate wall  simulate/cg  next wall  next/cg  peak MB'))
cases.forEach((c, i) => {
  const r = results[i]
  const m = (xs, k) => median(xs.map((x) => x[k]))
  const cgWall = m(r.cg, 'wall'), cgCpu = m(r.cg, 'cpu')
  const trWall = m(r.trace, 'wall'), trCpu = m(r.trace, 'cpu')
  const simWall = m(r.simulate, 'wall')
  console.log(
    [
      ...columns.cells(c),
      String(r.trace.at(-1).events).padStart(10),
      f2(cgWall).padStart(7),
      f2(cgCpu).padStart(7),
      f2(trWall).padStart(11),
      f2(trCpu).padStart(10),
      f2(trWall / cgWall).padStart(8),
      f2(trCpu / cgCpu).padStart(7),
      f2(m(r.advise, 'wall')).padStart(9),
      f2(m(r.objects, 'wall')).padStart(10),
      f2(simWall).padStart(14),
      f2(simWall / cgWall).padStart(12),
      f2(m(r.next, 'wall')).padStart(10),
      f2(m(r.next, 'wall') / cgWall).padStart(8),
      (r.rss / 1024).toFixed(0).padStart(8)
    ].join(' ')
  )
})
done()

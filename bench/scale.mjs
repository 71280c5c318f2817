#!/usr/bin/env node
// A billion accesses: the corpus's lz4 (bench/corpus-programs.mjs) on its 10 MiB text repeated
// N times (default 38: about 1.03 billion accesses), whole program, once under Cachegrind and
// once under `stride trace --cache` with Cachegrind's own D1 and LL, side by side: wall and CPU
// seconds, peak RSS (memory must stay flat as the trace grows), the session's size, and the
// time per access.
// Usage: npm run build && node bench/scale.mjs [N]
import { spawnSync } from 'node:child_process'
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { corpusDir, prepareCorpus } from './corpus-programs.mjs'

const root = join(import.meta.dirname, '..')
const stride = join(root, 'bin', 'stride.js')
const N = Number(process.argv[2] ?? 38)
const lz4 = prepareCorpus(corpusDir(), (line) => console.log(line)).find((p) => p.name === 'lz4')
const text = lz4.args[2]
const work = mkdtempSync(join(tmpdir(), 'stride-bench-scale-'))
const big = join(work, 'text.txt')
for (let i = 0; i < N; i++) await pipeline(createReadStream(text), createWriteStream(big, { flags: 'a' }))

const cg = spawnSync('valgrind', ['--tool=cachegrind', '--cachegrind-out-file=/dev/null', '-v', '/bin/true'], { encoding: 'utf8' }).stderr
const level = (name) => {
  const m = new RegExp(`${name}: ([\\d,]+) B, (\\d+)-way, (\\d+) B lines`).exec(cg)
  if (!m) throw new Error(`cannot read Cachegrind's ${name} from its -v output`)
  return `${name}:${m[1].replaceAll(',', '')}:${m[2]}:${m[3]}`
}
const caches = [level('D1'), level('LL')].flatMap((l) => ['--cache', l])

function timed(argv) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', ...argv], { cwd: work, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr.slice(-1500)}`)
  const [wall, user, sys, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number)
  return { wall, cpu: user + sys, mb: kb / 1024, out: r.stdout }
}

const c = timed(['valgrind', '--tool=cachegrind', '--cachegrind-out-file=/dev/null', lz4.program, '-1', '-f', big, join(work, 'out-cg.lz4')])
const session = join(work, 'big.stride')
const s = timed([stride, 'trace', '--out', session, '--force', ...caches, '--launch', lz4.program, '-1', '-f', big, join(work, 'out.lz4')])
const accesses = Number(/(\d+) events, \d+ access points/.exec(s.out)?.[1] ?? NaN)
const bytes = statSync(session).size
console.log(`lz4 -1 of ${(statSync(big).size / 2 ** 20).toFixed(0)} MiB, ${caches.filter((x) => x !== '--cache').join(' ')}, ${new Date().toISOString()}`)
console.log('                accesses   wall s    CPU s  peak MB  session MB  wall ns/access  CPU ns/access')
console.log(`cachegrind  ${'-'.padStart(12)} ${c.wall.toFixed(2).padStart(8)} ${c.cpu.toFixed(2).padStart(8)} ${c.mb.toFixed(0).padStart(8)}`)
console.log(
  `stride      ${String(accesses).padStart(12)} ${s.wall.toFixed(2).padStart(8)} ${s.cpu.toFixed(2).padStart(8)} ${s.mb.toFixed(0).padStart(8)} ${(bytes / 1e6).toFixed(0).padStart(11)} ${((s.wall / accesses) * 1e9).toFixed(0).padStart(15)} ${((s.cpu / accesses) * 1e9).toFixed(0).padStart(14)}`
)
console.log(`stride / cachegrind: ${(s.wall / c.wall).toFixed(2)}x wall, ${(s.cpu / c.cpu).toFixed(2)}x CPU; ${(bytes / accesses).toFixed(2)} bytes an access`)
rmSync(work, { recursive: true, force: true })

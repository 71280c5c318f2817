#!/usr/bin/env node
// Tracing throughput, side by side in one run, on the bundled examples (whole program):
//   floor    valgrind --tool=lackey --trace-mem=yes writing to /dev/null (lackey's own cost)
//   stride   `stride trace` (lackey -> stride-pipebuf relay -> parser -> chunks in SQLite)
//   direct   the same without the relay (STRIDE_NO_PIPEBUF=1: lackey writes into Node's pipe)
// Usage: npm run build && npm run examples && node bench/trace.mjs [example ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const cli = join(root, 'out', 'main', 'cli.js')
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['conflict', 'reuse', 'micro', 'mult']
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-'))

function timed(cmd, args, env = process.env) {
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 << 20 })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`)
  return { s: Number(process.hrtime.bigint() - t) / 1e9, out: r.stdout }
}

console.log('example          events   floor s  stride s  direct s  stride/floor  direct/stride  Mevents/s')
for (const name of names) {
  const program = join(root, 'resources', 'examples', 'build', name)
  const floor = timed('sh', ['-c', `valgrind --tool=lackey --trace-mem=yes --log-fd=9 ${program} 9>/dev/null >/dev/null 2>&1`])
  const stride = timed(process.execPath, [cli, 'trace', '--launch', program, '--out', join(dir, `${name}.stride`)])
  const direct = timed(process.execPath, [cli, 'trace', '--launch', program, '--out', join(dir, `${name}-direct.stride`)], { ...process.env, STRIDE_NO_PIPEBUF: '1' })
  const events = Number(/^(\d+) events/.exec(stride.out)?.[1] ?? 0)
  console.log(
    [
      name.padEnd(14),
      String(events).padStart(9),
      floor.s.toFixed(2).padStart(8),
      stride.s.toFixed(2).padStart(9),
      direct.s.toFixed(2).padStart(9),
      (stride.s / floor.s).toFixed(2).padStart(13),
      (direct.s / stride.s).toFixed(2).padStart(14),
      (events / stride.s / 1e6).toFixed(2).padStart(10)
    ].join(' ')
  )
}
rmSync(dir, { recursive: true, force: true })

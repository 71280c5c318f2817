#!/usr/bin/env node
// Attach overhead (issues 14, 52): a target that calls sumfunc (12,288 loads a call) as fast
// as it can and logs its call count every 100 ms (bench/targets/attach-target.c, -O2 PIE).
// Two copies run side by side: the one Stride attaches to, and a twin it never touches, so
// the machine's load (it is shared) weighs on both alike. Rows, from their logs:
//   native       before Stride touches it (median of 100 ms windows)
//   MODE         while `stride trace --attach PID --functions sumfunc --sampling MODE
//                --seconds S` runs: calls made during the CLI's whole run (attach,
//                record S seconds, detach) over its duration; for complete, whose
//                trace holds every call, also calls recorded / S (the speed while
//                instrumented, attach and detach excluded)
//   after detach calls per CPU-second of the attached copy once Stride has detached, over
//                S seconds, against the twin's calls per CPU-second over the same seconds
//                (CPU time from /proc/PID/stat: a copy that gets less of a shared core is
//                not counted slower); the ratio should be 1
//   valgrind     the same recording through the Valgrind backend: a fresh target under
//                `stride trace --launch ... --seconds S --stop-at-limit`, calls over its
//                logged time (without --stop-at-limit the trace would wait for this
//                endless target after detaching it)
// Ratios are to native, the after-detach one to the twin.
// Needs a real `frida` importable from the Stride folder (the Frida rows fail otherwise).
// Usage: npm run build && node bench/attach.mjs [SECONDS]
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const cli = join(root, 'out', 'main', 'cli.js')
const seconds = Number(process.argv[2] ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-attach-'))
const target = join(dir, 'attach-target')
execFileSync('cc', ['-O2', '-g', '-fPIE', '-pie', '-o', target, join(root, 'bench', 'targets', 'attach-target.c')])
const env = { ...process.env, STRIDE_HOME: dir }
/** Records in one sumfunc call: 3 loads x 4096, and the return's stack read. */
const CALL = 3 * 4096 + 1
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** [ms, calls] samples logged so far. */
function samples(log) {
  return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ').map(Number))
}
/** Mean calls/s between two samples. */
function mean(all, from, to) {
  const [t0, c0] = all[Math.max(0, from)]
  const [t1, c1] = all[Math.min(all.length, to) - 1]
  return t1 > t0 ? ((c1 - c0) * 1000) / (t1 - t0) : NaN
}
/** Median calls/s over the 100 ms windows between two sample counts. */
function rate(all, from, to) {
  const w = []
  for (let i = Math.max(1, from); i < to && i < all.length; i++) {
    const [t0, c0] = all[i - 1]
    const [t1, c1] = all[i]
    if (t1 > t0) w.push(((c1 - c0) * 1000) / (t1 - t0))
  }
  w.sort((a, b) => a - b)
  return w.length ? w[Math.floor(w.length / 2)] : NaN
}

/** Clock ticks of CPU (user + system) a process has used, from /proc/PID/stat. */
function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12]) // utime, stime (fields 14 and 15)
}
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim())
/** [calls, cpu seconds] of a copy now. */
function snapshot(pid, log) {
  const s = samples(log)
  return [s[s.length - 1][1], cpuTicks(pid) / TICKS]
}

// Outside Node's child tracking (Frida's attach needs the target's stop signal).
const start = (log) => Number(execFileSync('setsid', ['sh', '-c', '"$0" "$1" >/dev/null 2>&1 </dev/null & echo $!', target, log], { encoding: 'utf8' }).trim())
const log = join(dir, 'calls.log')
const twinLog = join(dir, 'twin.log')
const pid = start(log)
const twin = start(twinLog)
const rows = []
try {
  await sleep(300)
  const perCpu = async () => {
    const [c0, t0] = snapshot(pid, log)
    const [w0, u0] = snapshot(twin, twinLog)
    await sleep(seconds * 1000)
    const [c1, t1] = snapshot(pid, log)
    const [w1, u1] = snapshot(twin, twinLog)
    return { attached: (c1 - c0) / (t1 - t0), twin: (w1 - w0) / (u1 - u0), cpu: t1 - t0, twinCpu: u1 - u0 }
  }
  const before = await perCpu()
  let s = samples(log)
  rows.push(['native', rate(s, 3, s.length), null])
  rows.push(['native per CPU-s', before.attached, `(${before.cpu.toFixed(2)} CPU-s); the twin ${Math.round(before.twin)} (${(before.attached / before.twin).toFixed(3)}x)`, before.attached])
  for (const mode of ['complete', 'max-samples=10', 'periodic=100,900', 'convergence=0.05']) {
    const before = samples(log).length
    const t0 = Date.now()
    const r = spawnSync(process.execPath, [cli, 'trace', '--attach', String(pid), '--functions', 'sumfunc', '--sampling', mode, '--seconds', String(seconds), '--no-heap', '--out', join(dir, `${mode}.stride`)], { env, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`stride trace --sampling ${mode} failed: ${r.stderr}`)
    const wall = (Date.now() - t0) / 1000
    // From the last sample before the CLI started to the first after it ended.
    await sleep(150)
    s = samples(log)
    const events = Number(r.stdout.split(' ')[0])
    rows.push([mode, mean(s, before - 1, s.length), `${events} events, CLI ran ${wall.toFixed(1)} s`])
    if (mode === 'complete') rows.push(['complete, in S', events / CALL / seconds, `${Math.round(events / CALL)} calls recorded in ${seconds} s`])
  }
  // Both copies over the same seconds, per CPU-second each.
  const after = await perCpu()
  rows.push(['after detach', after.attached, `per CPU-second (${after.cpu.toFixed(2)} CPU-s); ${(after.attached / after.twin).toFixed(3)}x the never-attached twin`, before.attached])
  rows.push(['twin, same time', after.twin, `per CPU-second (${after.twinCpu.toFixed(2)} CPU-s), never attached`, before.twin])
} finally {
  process.kill(pid, 'SIGKILL')
  process.kill(twin, 'SIGKILL')
}

// The Valgrind backend: a fresh target recorded from its start for the same time.
const vlog = join(dir, 'valgrind.log')
const v = spawnSync(process.execPath, [cli, 'trace', '--launch', target, '--functions', 'sumfunc', '--seconds', String(seconds), '--stop-at-limit', '--no-heap', '--out', join(dir, 'valgrind.stride'), '--', vlog], { env, encoding: 'utf8' })
if (v.status !== 0) throw new Error(`stride trace (valgrind) failed: ${v.stderr}`)
const vs = samples(vlog)
rows.push(['valgrind backend', mean(vs, 0, vs.length), `${v.stdout.split(' ')[0]} events`])

const native = rows[0][1]
console.log(`target: sumfunc over 3 x 4096 doubles, ${seconds} s per phase (machine shared)`)
console.log('phase'.padEnd(18) + 'calls/s'.padStart(10) + '  x native'.padStart(10) + '  recorded')
// Rows per CPU-second compare with the same copy's native per CPU-second.
for (const [name, r, note, base] of rows) console.log(name.padEnd(18) + Math.round(r).toString().padStart(10) + (r / (base ?? native)).toFixed(3).padStart(10) + (note ? `  ${note}` : ''))
rmSync(dir, { recursive: true, force: true })

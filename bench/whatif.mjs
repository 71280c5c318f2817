#!/usr/bin/env node
// "What if another cache?" answered three ways, side by side in one run, per program:
//   cachegrind  re-running the program under valgrind --tool=cachegrind for each cache
//   stride      tracing once, then `stride simulate` per cache on the stored trace
//   app         the same re-simulation as the app asks it: a `simulate` job on the running
//               backend (`stride serve`, its warm worker pool), then the run's report as the
//               session view loads it (src/renderer/state/report-loader.ts, run here as it is:
//               the first report of a session whole, later ones as figures completed from it),
//               over the app's own WebSocket API; `whole`: the same what-if with the whole
//               report every time (getReport), as the app asked before reports came as figures
//   app trace   the launch dialog's flow: one `startTrace` job with the first cache to
//               simulate (the trace, then its simulation), then `getReport`: trace + first
//               simulation as a user of the app waits for it
//   trace --cache  the same from the command line in one command (`stride trace --cache`)
// Programs: the examples, the heat stencil of bench/targets (heat 512 12: 15.6 M
// accesses), and the C++ program of standard containers there (24 M accesses, whole program,
// irregular: where decoding the trace, not simulating it, sets the pace). Per program and cache, R runs of each (default 3); the figures are medians.
// Prints per program: the trace time, Cachegrind's and Stride's per-cache times (mean over
// the caches of the medians), their ratio (> 1: the re-simulation is faster), and trace +
// first simulation over one Cachegrind run (CLI), and the app's trace job with its first
// simulation over the Cachegrind run on that cache. CLI wall times include Node's and the
// workers' start-up and reading the session; app times are from the request to the report in hand.
// The command-line figures run the `stride` command (bin/stride.js), as a user's `stride` or
// `npx stride` does. Where NODE_EXTRA_CA_CERTS is set (Node 20 then parses a CA bundle at every
// start; the command starts Node without it), the `node cli.js` columns time the same two
// commands as `node out/main/cli.js …`, which parses it.
// Usage: npm run build && npm run examples && node bench/whatif.mjs [R] [program ...]
import { spawn, spawnSync } from 'node:child_process'
import WebSocket from 'ws'
import { build } from 'esbuild'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
/** A TypeScript module of the app, bundled as it is and loaded here. */
async function importTs(path) {
  const out = await build({ entryPoints: [join(root, path)], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'error' })
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`)
}
const { ReportLoader } = await importTs('src/renderer/state/report-loader.ts')
const cli = join(root, 'out', 'main', 'cli.js')
const stride = join(root, 'bin', 'stride.js')
const R = Number(process.argv[2] ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-'))
const heat = join(dir, 'heat')
const cc = spawnSync('cc', ['-O2', '-g', '-o', heat, join(root, 'bench', 'targets', 'heat.c')], { encoding: 'utf8' })
if (cc.status !== 0) throw new Error(`cannot build bench/targets/heat.c: ${cc.stderr}`)
const example = (name) => ({ name, program: join(root, 'resources', 'examples', 'build', name), args: [] })
// C++ as Debian builds it (g++ -O2 -g, PIE).
const containers = join(dir, 'containers')
const cxx = spawnSync('g++', ['-O2', '-g', '-o', containers, join(root, 'bench', 'targets', 'containers.cpp')], { encoding: 'utf8' })
if (cxx.status !== 0) throw new Error(`cannot build bench/targets/containers.cpp: ${cxx.stderr}`)
const all = [...['conflict', 'reuse', 'micro', 'mult', 'blocked'].map(example), { name: 'heat 512 12', program: heat, args: ['512', '12'] }, { name: 'containers', program: containers, args: [] }]
const wanted = process.argv.slice(3)
const programs = wanted.length ? all.filter((p) => wanted.includes(p.name.split(' ')[0])) : all
const caches = [
  ['L1:32K:8:64', '32768,8,64'],
  ['L1:128K:2:128', '131072,2,128'],
  ['L1:64K:4:64', '65536,4,64']
]

function timed(cmd, args, env = process.env) {
  const t = process.hrtime.bigint()
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20, env })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`)
  return { s: Number(process.hrtime.bigint() - t) / 1e9, out: r.stdout }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length

/** A running `stride serve` and one API connection to it, as a browser tab would hold. */
async function startApp() {
  const child = spawn(process.execPath, [cli, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise((resolve, reject) => {
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(out)
      if (m) resolve(new URL(m[1]))
    })
    child.once('exit', (code) => reject(new Error(`stride serve exited (${code})`)))
  })
  const ws = new WebSocket(`ws://${url.host}/api?token=${url.searchParams.get('token')}&client=benchwhatif`, { headers: { Origin: url.origin } })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  let nextId = 1
  const pending = new Map()
  const jobs = new Map()
  // A job's end can arrive in the same socket read as the call's reply, and `ws` emits both
  // before the caller's continuation registers the job: such an end waits here (as the
  // renderer's job store keeps early events), else the bench would wait for it forever.
  const ended = new Map()
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString())
    if (m.event === 'finished' || m.event === 'failed') {
      const waiting = jobs.get(m.payload.jobId)
      if (waiting) waiting(m)
      else ended.set(m.payload.jobId, m)
    } else if (typeof m.id === 'number') pending.get(m.id)?.(m)
  })
  /** The end of a job (finished or failed), whenever it came. */
  const jobEnd = (jobId) =>
    new Promise((resolve) => {
      const m = ended.get(jobId)
      if (m) return void (ended.delete(jobId), resolve(m))
      jobs.set(jobId, (e) => (jobs.delete(jobId), resolve(e)))
    })
  const call = (method, input) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, (m) => (pending.delete(id), m.ok ? resolve(m.result) : reject(new Error(m.error.message))))
      ws.send(JSON.stringify({ id, method, input }))
    })
  // The session view's reports: whole the first time for a recording, figures after.
  const reports = new ReportLoader(() => ({ getReport: (input) => call('getReport', input), getRunFigures: (input) => call('getRunFigures', input) }))
  /** The what-if as the app runs it: simulate (a job), then the run's report. */
  async function whatIf(session, level, whole = false) {
    const t = process.hrtime.bigint()
    const { jobId } = await call('simulate', { session, config: { levels: [level], cachegrindCompatible: true } })
    const end = await jobEnd(jobId)
    if (end.event === 'failed') throw new Error(end.payload.error)
    if (whole) await call('getReport', { session, run: end.payload.run })
    else await reports.load(session, end.payload.run)
    return Number(process.hrtime.bigint() - t) / 1e9
  }
  /** Trace + first simulation as the launch dialog asks it: one trace job that simulates, then the report. */
  async function traceAndSimulate(program, args, out, level) {
    const t = process.hrtime.bigint()
    const { jobId } = await call('startTrace', { program, args, out, simulate: { levels: [level], cachegrindCompatible: true } })
    const end = await jobEnd(jobId)
    if (end.event === 'failed') throw new Error(end.payload.error)
    await reports.load(out, end.payload.run)
    return Number(process.hrtime.bigint() - t) / 1e9
  }
  return { whatIf, traceAndSimulate, close: () => (ws.close(), child.kill('SIGTERM')) }
}
const levelOf = (d1) => {
  const [size, assoc, lineSize] = d1.split(',').map(Number)
  return { name: 'L1', size, assoc, lineSize }
}
const app = await startApp()

// NODE_EXTRA_CA_CERTS makes every Node process parse that CA bundle before it runs a line
// (some build machines set it for their proxy). The `stride` command starts Node without it
// (Stride makes no TLS connection); when it is set, `stride simulate` and `stride trace --cache`
// are also timed as `node out/main/cli.js …` (the `node cli.js` columns), which parses it.
const extraCa = process.env.NODE_EXTRA_CA_CERTS
const withoutCa = extraCa ? Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_EXTRA_CA_CERTS')) : null
const direct = Boolean(extraCa)
{
  const start = (env) => median(Array.from({ length: 9 }, () => timed(process.execPath, ['-e', '0'], env).s))
  console.log(`Node's own start (node -e 0): ${(start(process.env) * 1000).toFixed(0)} ms${withoutCa ? `; NODE_EXTRA_CA_CERTS is set here: ${(start(withoutCa) * 1000).toFixed(0)} ms without it` : ''}`)
}
console.log(`medians of ${R} runs; per-cache times are means over ${caches.length} caches`)
console.log('program            events  trace s  cg/run s  sim/run s  cg/sim  app/run s  cg/app  whole s  (trace+sim)/cg  app trace+sim s  /cg  trace --cache s  /cg' + (direct ? '  node cli.js: sim s  cg/sim  trace --cache s  /cg' : ''))
for (const p of programs) {
  const session = join(dir, `${p.name.replace(/ /g, '_')}.stride`)
  const traces = []
  let events = 0
  for (let r = 0; r < R; r++) {
    const t = timed(stride, ['trace', '--launch', p.program, '--out', session, '--', ...p.args])
    traces.push(t.s)
    events = Number(/^(\d+) events/m.exec(t.out)?.[1] ?? 0)
  }
  const cgs = []
  const sims = []
  const apps = []
  const wholes = []
  const simsDirect = []
  for (const [spec, d1] of caches) {
    const cg = []
    const sim = []
    const simDirect = []
    const inApp = []
    const whole = []
    for (let r = 0; r < R; r++) {
      cg.push(timed('valgrind', ['--tool=cachegrind', '--cache-sim=yes', `--D1=${d1}`, `--cachegrind-out-file=${join(dir, 'cg.out')}`, p.program, ...p.args]).s)
      const simulate = ['simulate', session, '--cache', spec, '--cachegrind-compatible']
      sim.push(timed(stride, simulate).s)
      if (direct) simDirect.push(timed(process.execPath, [cli, ...simulate]).s)
      inApp.push(await app.whatIf(session, levelOf(d1)))
      whole.push(await app.whatIf(session, levelOf(d1), true))
    }
    cgs.push(median(cg))
    sims.push(median(sim))
    if (direct) simsDirect.push(median(simDirect))
    apps.push(median(inApp))
    wholes.push(median(whole))
  }
  // `stride trace --cache`: the trace and its first simulation in one command (the first cache).
  const traceWithCache = ['trace', '--launch', p.program, '--out', join(dir, `${p.name.replace(/ /g, '_')}-one.stride`), '--force', '--cache', caches[0][0], '--cachegrind-compatible', '--', ...p.args]
  const oneCommand = []
  const oneCommandDirect = []
  for (let r = 0; r < R; r++) {
    oneCommand.push(timed(stride, traceWithCache).s)
    if (direct) oneCommandDirect.push(timed(process.execPath, [cli, ...traceWithCache]).s)
  }
  const withCache = median(oneCommand)
  // The app's own trace + first simulation (the first cache), against Cachegrind on that cache.
  const appTraces = []
  for (let r = 0; r < R; r++) appTraces.push(await app.traceAndSimulate(p.program, p.args, join(dir, `${p.name.replace(/ /g, '_')}-app${r}.stride`), levelOf(caches[0][1])))
  const appTrace = median(appTraces)
  const trace = median(traces)
  const cg = mean(cgs)
  const sim = mean(sims)
  const inApp = mean(apps)
  const inAppWhole = mean(wholes)
  console.log(
    [
      p.name.padEnd(15),
      String(events).padStart(9),
      trace.toFixed(2).padStart(8),
      cg.toFixed(2).padStart(9),
      sim.toFixed(2).padStart(10),
      (cg / sim).toFixed(2).padStart(7),
      inApp.toFixed(2).padStart(10),
      (cg / inApp).toFixed(2).padStart(7),
      inAppWhole.toFixed(2).padStart(8),
      ((trace + sims[0]) / cgs[0]).toFixed(1).padStart(15),
      appTrace.toFixed(2).padStart(16),
      (appTrace / cgs[0]).toFixed(1).padStart(4),
      withCache.toFixed(2).padStart(17),
      (withCache / cgs[0]).toFixed(1).padStart(4),
      ...(direct
        ? [mean(simsDirect).toFixed(2).padStart(19), (cg / mean(simsDirect)).toFixed(2).padStart(7), median(oneCommandDirect).toFixed(2).padStart(16), (median(oneCommandDirect) / cgs[0]).toFixed(1).padStart(4)]
        : [])
    ].join(' ')
  )
}
app.close()
rmSync(dir, { recursive: true, force: true })

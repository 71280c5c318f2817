#!/usr/bin/env node
// Cost of ranking data structures (issue 8), per example: each method against the exact pass
// on the same session and hierarchy (L1 32K, 8-way, 64-byte lines).
//   simulate   `stride simulate` wall time (the plain simulation, for scale)
//   exact      `stride objects --method exact` wall time; "pass" = its simulation + address
//              attribution inside the pass (cost.seconds)
//   each method: wall time of `stride objects --method M` (which includes the exact pass it is
//              compared with), the method's own share of the pass (cost.seconds), its cost in
//              samples or interrupts, and rho against exact
// Usage: npm run build && npm run examples && node bench/objects.mjs [example ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const cli = join(root, 'out', 'main', 'cli.js')
const examples = JSON.parse(readFileSync(join(root, 'resources', 'examples', 'examples.json'), 'utf8'))
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['objects_shares', 'loop_index', 'mult']
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-objects-'))
const env = { ...process.env, STRIDE_HOME: join(dir, 'home') }

function stride(args) {
  const t = performance.now()
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env, maxBuffer: 256 << 20 })
  if (r.status !== 0) throw new Error(`stride ${args.join(' ')} failed: ${r.stderr}`)
  return { out: r.stdout, seconds: (performance.now() - t) / 1000 }
}

const methods = ['sample:1009', 'sample:1009 --interval random', 'search:10', 'approx:raw', 'approx:loop', 'approx:skid --skid 1:0.7']
const pad = (s, n) => String(s).padEnd(n)
const num = (x, d = 2) => x.toFixed(d).padStart(7)
try {
  for (const name of names) {
    const ex = examples.find((e) => e.name === name)
    if (!ex) throw new Error(`no example "${name}"`)
    const session = join(dir, `${name}.stride`)
    stride(['trace', '--launch', join(root, 'resources', 'examples', 'build', name), '--functions', ex.functions.join(','), '--out', session])
    const sim = stride(['simulate', session, '--cache', 'L1:32K:8:64'])
    const exact = stride(['objects', session, '--method', 'exact', '--json'])
    const e = JSON.parse(exact.out)
    console.log(`\n${name}: ${e.totalMisses.toLocaleString('en-US')} L1 misses; stride simulate ${sim.seconds.toFixed(2)} s; exact ${exact.seconds.toFixed(2)} s wall, pass ${e.cost.seconds.toFixed(2)} s`)
    console.log(`${pad('method', 30)} ${'wall s'.padStart(7)} ${'own s'.padStart(7)} ${'own/pass'.padStart(8)}  ${pad('cost', 26)} rho`)
    for (const m of methods) {
      const [method, ...rest] = m.split(' ')
      const r = stride(['objects', session, '--method', method, ...rest, '--json'])
      const j = JSON.parse(r.out)
      const cost = j.cost.interrupts !== undefined ? `${j.cost.interrupts} interrupts${j.cost.converged ? '' : ' (not converged)'}` : `${j.cost.samples} samples`
      console.log(`${pad(m, 30)} ${num(r.seconds)} ${num(j.cost.seconds, 3)} ${(j.cost.seconds / j.cost.exactSeconds).toFixed(3).padStart(8)}  ${pad(cost, 26)} ${j.rho === null ? 'n/a' : j.rho.toFixed(2)}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

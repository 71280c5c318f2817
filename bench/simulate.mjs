#!/usr/bin/env node
// Simulator throughput on a synthetic trace (no session I/O: the core alone), side by side in
// one run:
//   (a) one LRU level (L1 32K/8/64) with per-reference stats and evictors
//   (b) L1 32K/8/64 + L2 256K/8/64 + DTLB 64/4/4K, per-reference stats and evictors
// each for: the native core (production, src/main/simulate/native-hierarchy.ts; for (b) both on
// one thread and with its TLB level on a thread of its own, `tlbThread`, the default from 3 cores), the
// TypeScript reference model (hierarchy.ts), and a bare C LRU loop over the same trace with
// nothing the metrics need (bench/targets/lru-floor.c: the floor).
//   sweep: 4 configurations (as b) on the native core: one after another in one worker, then
//   split over a pool of workers, each simulating its share in one pass over the trace.
// The trace: 16 access points, 1M accesses per batch (12 streaming at strides 8/16/64,
// 4 random over 64 MiB), replayed at a fresh base address until ACCESSES (default 50M).
// Native and floor figures are medians of R runs (default 3); the TypeScript model runs once.
// Only the simulation is timed on each side (not the moving of the batch to its next base).
// On a VM whose vCPUs differ in speed, pin the bench (taskset -c K node bench/simulate.mjs ...):
// the native core and its floor then run on the same CPU.
// Usage: npm run build && node bench/simulate.mjs [ACCESSES] [POOL] [R]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { fileURLToPath } from 'node:url'

const BATCH = 1 << 20
const SHIFT = 128 << 20
const root = join(import.meta.dirname, '..')

function makeBatch(seed) {
  let x = seed >>> 0 || 1
  const points = new Uint32Array(BATCH)
  const addresses = new Float64Array(BATCH)
  const sizes = new Uint16Array(BATCH).fill(8)
  const cursor = new Float64Array(16)
  for (let p = 0; p < 16; p++) cursor[p] = p * (4 << 20)
  for (let i = 0; i < BATCH; i++) {
    const p = i & 15
    points[i] = p
    if (p < 12) {
      addresses[i] = cursor[p]
      cursor[p] += p < 4 ? 8 : p < 8 ? 16 : 64
    } else {
      x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0
      addresses[i] = (64 << 20) + (x % (8 << 20)) * 8
    }
  }
  return { count: BATCH, points, addresses, sizes }
}

const kinds = () => new Uint8Array(16).map((_, p) => (p % 4 === 3 ? 1 : 0))

/** Simulates `configs` in one pass over the trace (each batch goes through every hierarchy). */
function simulate(Impl, configs, accesses, options) {
  const hs = configs.map((c) => new Impl(c, kinds(), options))
  const batch = makeBatch(7)
  const base = batch.addresses.slice()
  // Only the simulators are timed: moving the batch up is the bench's own work (the floor
  // times its loop the same way).
  let spent = 0n
  for (let done = 0, round = 0; done < accesses; done += BATCH, round++) {
    const shift = round * SHIFT
    for (let i = 0; i < BATCH; i++) batch.addresses[i] = base[i] + shift
    const t = process.hrtime.bigint()
    for (const h of hs) h.run(batch)
    spent += process.hrtime.bigint() - t
  }
  const t = process.hrtime.bigint()
  for (const h of hs) h.finish()
  const s = Number(spent + process.hrtime.bigint() - t) / 1e9
  return { s, accesses: hs[0].accesses, misses: hs.map((h) => h.levelTotals().map((l) => l.readMisses + l.writeMisses)) }
}

const L = (name, size, assoc, lineSize, extra = {}) => ({ name, size, assoc, lineSize, policy: 'lru', ...extra })
const CONFIG_A = { levels: [L('L1', 32768, 8, 64)], cachegrindCompatible: false }
const CONFIG_B = { levels: [L('L1', 32768, 8, 64), L('L2', 262144, 8, 64)], tlb: [{ name: 'DTLB', entries: 64, assoc: 4, pageSize: 4096 }], cachegrindCompatible: false }
const SWEEP = [
  CONFIG_B,
  { ...CONFIG_B, levels: [L('L1', 65536, 4, 64), L('L2', 524288, 8, 64)] },
  { ...CONFIG_B, levels: [L('L1', 32768, 8, 64, { policy: 'plru' }), L('L2', 262144, 16, 64)] },
  { ...CONFIG_B, levels: [L('L1', 32768, 8, 128, { prefetch: 'next-line' }), L('L2', 1048576, 16, 128)] }
]

if (!isMainThread) {
  const mod = await import(workerData.bundle)
  const Impl = workerData.impl === 'native' ? mod.NativeHierarchy : mod.Hierarchy
  parentPort.postMessage(simulate(Impl, workerData.configs, workerData.accesses, workerData.options))
} else {
  const accesses = Number(process.argv[2] ?? 50e6)
  const pool = Number(process.argv[3] ?? availableParallelism())
  const R = Number(process.argv[4] ?? 3)
  const dir = mkdtempSync(join(tmpdir(), 'stride-bench-sim-'))
  // Bundled inside the project, where the native core's loader finds the project root.
  const { build } = await import('rolldown')
  const entry = join(dir, 'entry.ts')
  writeFileSync(entry, `export { Hierarchy } from ${JSON.stringify(join(root, 'src/main/simulate/hierarchy.ts'))}\nexport { NativeHierarchy } from ${JSON.stringify(join(root, 'src/main/simulate/native-hierarchy.ts'))}\n`)
  const bundle = join(root, 'out', `bench-simulate-${process.pid}.cjs`)
  await build({ input: entry, platform: 'node', logLevel: 'silent', output: { file: bundle, format: 'cjs' } })
  const floorBin = join(dir, 'lru-floor')
  const cc = spawnSync('cc', ['-O2', '-o', floorBin, join(root, 'bench', 'targets', 'lru-floor.c')], { encoding: 'utf8' })
  if (cc.status !== 0) throw new Error(`cc failed: ${cc.stderr}`)
  const traceFile = join(dir, 'trace.u64')
  writeFileSync(traceFile, BigUint64Array.from(makeBatch(7).addresses, (a) => BigInt(a)))

  const inWorker = (impl, configs, options = {}) =>
    new Promise((resolve, reject) => {
      const w = new Worker(fileURLToPath(import.meta.url), { workerData: { bundle, impl, configs, accesses, options } })
      w.once('message', (m) => {
        resolve(m)
        void w.terminate()
      })
      w.once('error', reject)
    })
  const floor = (levels) => {
    const r = spawnSync(floorBin, [traceFile, String(accesses), String(SHIFT), ...levels], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`lru-floor failed: ${r.stderr}`)
    const [s, ...misses] = r.stdout.trim().split(' ').map(Number)
    return { s, accesses: Math.ceil(accesses / BATCH) * BATCH, misses }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rate = (s, n) => n / s / 1e6
  const fmt = (x) => x.toFixed(1).padStart(6)

  console.log(`${accesses.toLocaleString('en-US')} accesses per run; ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.versions.node}`)
  for (const [label, config, floorLevels] of [
    ['(a) one LRU level, stats + evictors', CONFIG_A, ['cache:32768:8:64']],
    ['(b) L1 + L2 + DTLB, stats + evictors', CONFIG_B, ['tlb:64:4:4096', 'cache:32768:8:64', 'cache:262144:8:64']]
  ]) {
    // native: one thread; split: the TLB level on a thread of its own (hierarchies with one).
    const native = [], split = [], floors = []
    const tlb = (config.tlb ?? []).length > 0
    let nativeMisses = null, floorMisses = null
    for (let r = 0; r < R; r++) {
      const n = await inWorker('native', [config], { tlbThread: false })
      native.push(n.s)
      nativeMisses = n.misses[0]
      if (tlb) {
        const two = await inWorker('native', [config], { tlbThread: true })
        split.push(two.s)
        if (two.misses[0].join() !== nativeMisses.join()) throw new Error('the native core disagrees with itself split and not')
      }
      const f = floor(floorLevels)
      floors.push(f.s)
      floorMisses = f.misses
    }
    const ts = await inWorker('ts', [config])
    const n = Math.ceil(accesses / BATCH) * BATCH
    const rn = rate(median(native), n), rf = rate(median(floors), n), rt = rate(ts.s, n)
    console.log(`${label}:`)
    const byDefault = (threaded) => (threaded === availableParallelism() > 2 ? ', the default here' : '')
    console.log(`  native core        ${fmt(rn)} M accesses/s (median of ${R}: ${native.map((s) => s.toFixed(2)).join(' ')} s${tlb ? `, one thread${byDefault(false)}` : ''})`)
    if (tlb) console.log(`    TLB thread       ${fmt(rate(median(split), n))} M accesses/s (median of ${R}: ${split.map((s) => s.toFixed(2)).join(' ')} s, the TLB level on a thread of its own${byDefault(true)})`)
    // The floor runs on one thread: like for like with the one-thread figure.
    console.log(`  bare C LRU floor   ${fmt(rf)} M accesses/s (median of ${R}) -> native at ${(rn / rf * 100).toFixed(0)}% of the floor`)
    console.log(`  TypeScript model   ${fmt(rt)} M accesses/s (one run, ${ts.s.toFixed(2)} s) -> native ${(rn / rt).toFixed(1)}x faster`)
    // The floor simulates the same one-level LRU cache: its misses must be the simulator's.
    if (label.startsWith('(a)') && floorMisses[0] !== nativeMisses[0]) throw new Error(`the floor and the simulator disagree: ${floorMisses[0]} vs ${nativeMisses[0]} misses`)
    console.log(`  misses per level: native ${nativeMisses.join(' / ')}, TypeScript ${ts.misses[0].join(' / ')}, floor ${floorMisses.join(' / ')}`)
    if (nativeMisses.join() !== ts.misses[0].join()) throw new Error('the native core and the TypeScript model disagree')
  }

  // Sweep: all configurations in one worker (one pass), then split over the pool.
  const serial = []
  const parallel = []
  for (let r = 0; r < R; r++) {
    let t = process.hrtime.bigint()
    await inWorker('native', SWEEP)
    serial.push(Number(process.hrtime.bigint() - t) / 1e9)
    t = process.hrtime.bigint()
    const workers = Math.min(pool, SWEEP.length)
    const groups = Array.from({ length: workers }, (_, g) => SWEEP.filter((_, i) => i % workers === g))
    // As the app deals a sweep (run-worker.ts): TLB threads only where the workers leave cores free.
    await Promise.all(groups.map((g) => inWorker('native', g, { tlbThread: availableParallelism() > 2 * workers })))
    parallel.push(Number(process.hrtime.bigint() - t) / 1e9)
  }
  const s1 = median(serial), sp = median(parallel)
  console.log(`sweep of ${SWEEP.length} configurations (as b), native: one worker ${s1.toFixed(2)} s, pool of ${pool} ${sp.toFixed(2)} s, speed-up ${(s1 / sp).toFixed(2)}x (medians of ${R})`)
  rmSync(dir, { recursive: true, force: true })
  rmSync(bundle, { force: true })
}

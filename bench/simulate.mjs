#!/usr/bin/env node
// Simulator throughput on a synthetic trace (no session I/O: the core alone), side by side:
//   (a) one LRU level (L1 32K/8/64) with per-reference stats and evictors
//   (b) L1 32K/8/64 + L2 256K/8/64 + DTLB 64/4/4K, per-reference stats and evictors
//   sweep: 4 configurations one after another in one worker, then on a pool of workers
// The trace: 16 access points, 1M accesses per batch (12 streaming at strides 8/16/64,
// 4 random over 64 MiB), replayed at a fresh base address until ACCESSES (default 50M).
// Usage: node bench/simulate.mjs [ACCESSES] [POOL]
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { pathToFileURL, fileURLToPath } from 'node:url'

const BATCH = 1 << 20

async function bundle() {
  const { build } = await import('rolldown')
  const dir = mkdtempSync(join(tmpdir(), 'stride-bench-sim-'))
  const file = join(dir, 'hierarchy.mjs')
  await build({ input: join(import.meta.dirname, '..', 'src', 'main', 'simulate', 'hierarchy.ts'), output: { file, format: 'esm' }, logLevel: 'silent' })
  return { dir, file }
}

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

function simulate(mod, config, accesses) {
  const kinds = new Uint8Array(16).fill(0).map((_, p) => (p % 4 === 3 ? 1 : 0))
  const h = new mod.Hierarchy(config, kinds)
  const batch = makeBatch(7)
  const base = batch.addresses.slice()
  const t = process.hrtime.bigint()
  for (let done = 0, round = 0; done < accesses; done += BATCH, round++) {
    const shift = round * (128 << 20)
    for (let i = 0; i < BATCH; i++) batch.addresses[i] = base[i] + shift
    h.run(batch)
  }
  h.finish()
  const s = Number(process.hrtime.bigint() - t) / 1e9
  return { s, accesses: h.accesses, misses: h.levelTotals().map((l) => l.readMisses + l.writeMisses) }
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
  const mod = await import(pathToFileURL(workerData.file).href)
  const out = workerData.configs.map((c) => simulate(mod, c, workerData.accesses))
  parentPort.postMessage(out)
} else {
  const accesses = Number(process.argv[2] ?? 50e6)
  const pool = Number(process.argv[3] ?? availableParallelism())
  const { dir, file } = await bundle()
  const inWorker = (configs) =>
    new Promise((resolve, reject) => {
      const w = new Worker(fileURLToPath(import.meta.url), { workerData: { file, configs, accesses } })
      w.once('message', resolve)
      w.once('error', reject)
    })
  const rate = (r) => (r.accesses / r.s / 1e6).toFixed(1)
  const [a] = await inWorker([CONFIG_A])
  console.log(`(a) one LRU level, stats + evictors:     ${a.accesses.toLocaleString('en-US')} accesses in ${a.s.toFixed(2)} s = ${rate(a)} M accesses/s`)
  const [b] = await inWorker([CONFIG_B])
  console.log(`(b) L1 + L2 + DTLB, stats + evictors:    ${b.accesses.toLocaleString('en-US')} accesses in ${b.s.toFixed(2)} s = ${rate(b)} M accesses/s`)
  let t = process.hrtime.bigint()
  await inWorker(SWEEP)
  const serial = Number(process.hrtime.bigint() - t) / 1e9
  t = process.hrtime.bigint()
  const queue = [...SWEEP]
  await Promise.all(Array.from({ length: Math.min(pool, SWEEP.length) }, async () => {
    while (queue.length) await inWorker([queue.shift()])
  }))
  const parallel = Number(process.hrtime.bigint() - t) / 1e9
  console.log(`sweep of ${SWEEP.length} configurations (as b): one worker ${serial.toFixed(2)} s, pool of ${pool} ${parallel.toFixed(2)} s, speed-up ${(serial / parallel).toFixed(2)}x`)
  rmSync(dir, { recursive: true, force: true })
}

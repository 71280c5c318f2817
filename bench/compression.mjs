#!/usr/bin/env node
// Trace compression, per example: Stride's stored trace (prsd-sequitur-v4: METRIC PRSDs +
// loops folded + successor chains + SEQUITUR, the residue as planes or delta varints + brotli)
// against general-purpose compressors on the same raw trace (CLI.md's 24-byte records from
// `stride export --format raw`), SIGMA's repeat/exit codec, the previous format (v3: the
// residue always planes), and the compressor's own speed in one worker thread.
//   raw        events x 24 bytes
//   stride     storedBytes of the session (all trace chunks, as the writer stores them: v4)
//   v3         the same chunks in prsd-sequitur-v3 (what Strides before v4 stored)
//   sigma      SIGMA repeat/exit loop codec + brotli on the same chunks (comparison only)
//   xz, zstd, brotli, bzip2   `xz -9`, `zstd -19`, `brotli -q 11`, `bzip2 -9` of the raw file
//   xz/stride  how many times smaller Stride's form is than xz -9's
//   enc Mev/s  encoder events/s in one worker (256K-event chunks as stored, in memory, best of
//              3): the native codec (production, v4) beside the native v3 encoder and the
//              TypeScript reference (v4) in the same run; "1st" is the native v4 first stage
//              alone (without the brotli second stage). Each pass is a fresh encoder's, as a
//              session's: on a one-chunk trace that is the first chunk's fixed cost (~1.3 ms
//              here: fresh pages for brotli's state, and the GC marking that the new encoder's
//              10 MB of C memory starts). "warm v4": the same encoder again (best of 3 more
//              passes), as the chunks after the first of a long trace
//   dec Mev/s  decoder events/s, native v4 and v3, and TypeScript v4, over the same chunks
//   same       the native v4 chunks are byte-identical to the TypeScript ones
// Goals (issue 3): regular kernels >= 100x smaller than xz -9; irregular ones no more than
// 10% larger than xz -9. Issue 13: the encoder >= 20 M events/s per worker.
// Usage: npm run build && npm run examples && node bench/compression.mjs [example ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'

const root = join(import.meta.dirname, '..')
const cli = join(root, 'out', 'main', 'cli.js')
const examples = JSON.parse(readFileSync(join(root, 'resources', 'examples', 'examples.json'), 'utf8'))
const names = process.argv.slice(2).length ? process.argv.slice(2) : examples.map((e) => e.name)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-'))

const tools = [
  ['xz', ['-9', '-T1', '-c']],
  ['zstd', ['-19', '-T1', '-c', '-q']],
  ['brotli', ['-q', '11', '-c']],
  ['bzip2', ['-9', '-c']]
]
const present = tools.filter(([t]) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0)
const missing = tools.filter((t) => !present.includes(t)).map(([t]) => t)
if (missing.length) console.log(`missing compressors (columns skipped): ${missing.join(', ')} — install them (apt-get install ${missing.join(' ')}) for the full table`)

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20, ...opts })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

function compressedSize(tool, args, file) {
  const r = spawnSync('sh', ['-c', `${tool} ${args.join(' ')} "${file}" | wc -c`], { encoding: 'utf8' })
  return Number(r.stdout.trim())
}

// The compressor modules are TypeScript: bundle them once for the worker (inside the project,
// where the native core's loader finds the project root).
const { build } = await import('rolldown')
const entry = join(dir, 'entry.ts')
const src = (f) => JSON.stringify(join(root, 'src/main', f))
writeFileSync(
  entry,
  `export { PrsdSequiturEncoder, decodePrsdSequiturChunk } from ${src('compress/prsd-codec.ts')}\n` +
    `export { NativePrsdSequiturEncoder, decodePrsdSequiturChunkNative } from ${src('compress/native-codec.ts')}\n` +
    `export { nativeCore } from ${src('native/core.ts')}\n` +
    `export { encodeSigmaChunk, decodeSigmaChunk } from ${src('compress/sigma-codec.ts')}\n`
)
const bundle = join(root, 'out', `bench-compress-${process.pid}.cjs`)
await build({ input: entry, platform: 'node', logLevel: 'silent', output: { file: bundle, format: 'cjs' } })

const workerSource = `
import { parentPort, workerData } from 'node:worker_threads'
import { readFileSync } from 'node:fs'
const { PrsdSequiturEncoder, decodePrsdSequiturChunk, NativePrsdSequiturEncoder, decodePrsdSequiturChunkNative, nativeCore, encodeSigmaChunk, decodeSigmaChunk } = await import(workerData.bundle)
const raw = readFileSync(workerData.raw)
const n = raw.length / 24
const points = new Uint32Array(n), addresses = new Float64Array(n), sizes = new Uint16Array(n)
const ids = new Map()
for (let i = 0; i < n; i++) {
  const key = raw.readBigUInt64LE(i * 24) * 4n + BigInt(raw.readUInt32LE(i * 24 + 20))
  let p = ids.get(key)
  if (p === undefined) ids.set(key, (p = ids.size))
  points[i] = p
  addresses[i] = Number(raw.readBigUInt64LE(i * 24 + 8))
  sizes[i] = raw.readUInt32LE(i * 24 + 16)
}
const C = 1 << 18 // as SessionWriter stores them (MAX_STORED_CHUNK)
const pointCount = ids.size
/**
 * Best of 3 wall times of a fresh encoder over the whole trace, after one warm-up chunk; and
 * (warm) best of 3 more passes of the last one: its chunks after the first, as a long trace's.
 */
function timeEncoder(make, warm) {
  warm(make())
  let best = Infinity, chunks = [], e = null
  const pass = (out) => {
    const t = process.hrtime.bigint()
    for (let at = 0; at < n; at += C) {
      const k = Math.min(C, n - at)
      out.push(e(k, points.subarray(at, at + k), addresses.subarray(at, at + k), sizes.subarray(at, at + k)))
    }
    return Number(process.hrtime.bigint() - t) / 1e9
  }
  for (let rep = 0; rep < 3; rep++) {
    e = make()
    const out = []
    best = Math.min(best, pass(out))
    chunks = out
  }
  let warmBest = Infinity
  for (let rep = 0; rep < 3; rep++) warmBest = Math.min(warmBest, pass([]))
  return { seconds: best, warmSeconds: warmBest, chunks }
}
const first = Math.min(C, n)
const warm = (e) => e(first, points, addresses, sizes)
const encoderOf = (E) => () => { const x = new E(C); return (k, p, a, s) => x.encode(k, p, a, s, pointCount) }
const native = timeEncoder(encoderOf(NativePrsdSequiturEncoder), warm)
const nativePrev = timeEncoder(() => { const x = new NativePrsdSequiturEncoder(C, { version: 3 }); return (k, p, a, s) => x.encode(k, p, a, s, pointCount) }, warm)
const ts = timeEncoder(encoderOf(PrsdSequiturEncoder), warm)
const core = nativeCore()
const stage1 = timeEncoder(() => { const h = core.codecEncoderCreate(C, 4); return (k, p, a, s) => core.codecEncode(h, k, p, a, s, pointCount) }, warm)
const chunks = native.chunks
const bytes = chunks.reduce((s, c) => s + c.length, 0)
const bytesPrev = nativePrev.chunks.reduce((s, c) => s + c.length, 0)
const same = chunks.length === ts.chunks.length && chunks.every((c, i) => c.equals(ts.chunks[i]))
function timeDecoder(decode, of = chunks) {
  let best = Infinity
  for (let rep = 0; rep < 3; rep++) {
    const t = process.hrtime.bigint()
    for (const c of of) decode(c, pointCount)
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9)
  }
  return best
}
const decodeNative = timeDecoder(decodePrsdSequiturChunkNative)
const decodeNativePrev = timeDecoder(decodePrsdSequiturChunkNative, nativePrev.chunks)
const decodeTs = timeDecoder(decodePrsdSequiturChunk)
// Lossless check of what was timed (both formats).
for (const of of [chunks, nativePrev.chunks]) {
  let at = 0
  for (const c of of) {
    const d = decodePrsdSequiturChunkNative(c, pointCount)
    for (let i = 0; i < d.count; i++, at++)
      if (d.points[i] !== points[at] || d.addresses[i] !== addresses[at] || d.sizes[i] !== sizes[at]) throw new Error('round trip differs at ' + at)
  }
}
let sigmaBytes = 0, sigmaSeconds = 0
{
  const t = process.hrtime.bigint()
  const parts = []
  for (let a = 0; a < n; a += C) {
    const k = Math.min(C, n - a)
    parts.push(encodeSigmaChunk(k, points.subarray(a, a + k), addresses.subarray(a, a + k), sizes.subarray(a, a + k)))
  }
  sigmaSeconds = Number(process.hrtime.bigint() - t) / 1e9
  let b = 0
  for (const p of parts) {
    sigmaBytes += p.length
    const d = decodeSigmaChunk(p)
    for (let i = 0; i < d.count; i++, b++)
      if (d.points[i] !== points[b] || d.addresses[i] !== addresses[b] || d.sizes[i] !== sizes[b]) throw new Error('sigma round trip differs at ' + b)
  }
}
parentPort.postMessage({ events: n, native: native.seconds, nativeWarm: native.warmSeconds, nativePrev: nativePrev.seconds, ts: ts.seconds, stage1: stage1.seconds, decodeNative, decodeNativePrev, decodeTs, same, bytes, bytesPrev, sigmaBytes, sigmaSeconds })
`
const workerFile = join(dir, 'worker.mjs')
writeFileSync(workerFile, workerSource)

function measure(raw) {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerFile, { workerData: { raw, bundle } })
    w.once('message', resolve)
    w.once('error', reject)
  })
}

const fmt = (n) => String(n).padStart(10)
const header = ['example'.padEnd(10), 'events'.padStart(9), 'raw'.padStart(10), 'stride'.padStart(10), 'v3'.padStart(10), 'sigma'.padStart(10)]
for (const [t] of present) header.push(t.padStart(10))
header.push('raw/stride'.padStart(11), 'xz/stride'.padStart(10), 'xz/v3'.padStart(9), 'enc v4'.padStart(7), 'warm v4'.padStart(8), 'enc v3'.padStart(7), '1st v4'.padStart(7), 'enc TS'.padStart(7), 'dec v4'.padStart(7), 'dec v3'.padStart(7), 'dec TS'.padStart(7), 'same'.padStart(5), 'sigma Mev/s'.padStart(12))
console.log(header.join(' '))
for (const name of names) {
  const ex = examples.find((e) => e.name === name)
  if (!ex) throw new Error(`no example "${name}" in examples.json`)
  const program = join(root, 'resources', 'examples', 'build', name)
  const session = join(dir, `${name}.stride`)
  const raw = join(dir, `${name}.raw`)
  run(process.execPath, [cli, 'trace', '--launch', program, '--functions', ex.functions.join(','), '--out', session])
  const info = JSON.parse(run(process.execPath, [cli, 'info', session, '--json']))
  run(process.execPath, [cli, 'export', session, '--format', 'raw', '--out', raw])
  const rawBytes = statSync(raw).size
  const sizes = Object.fromEntries(present.map(([t, args]) => [t, compressedSize(t, args, raw)]))
  const m = await measure(raw)
  const rate = (seconds) => (m.events / seconds / 1e6).toFixed(2)
  const row = [name.padEnd(10), String(info.events).padStart(9), fmt(rawBytes), fmt(info.storedBytes), fmt(m.bytesPrev), fmt(m.sigmaBytes)]
  for (const [t] of present) row.push(fmt(sizes[t]))
  row.push(
    (rawBytes / info.storedBytes).toFixed(0).padStart(11),
    sizes.xz ? (sizes.xz / info.storedBytes).toFixed(2).padStart(10) : '-'.padStart(10),
    sizes.xz ? (sizes.xz / m.bytesPrev).toFixed(2).padStart(9) : '-'.padStart(9),
    rate(m.native).padStart(7),
    rate(m.nativeWarm).padStart(8),
    rate(m.nativePrev).padStart(7),
    rate(m.stage1).padStart(7),
    rate(m.ts).padStart(7),
    rate(m.decodeNative).padStart(7),
    rate(m.decodeNativePrev).padStart(7),
    rate(m.decodeTs).padStart(7),
    (m.same ? 'yes' : 'NO').padStart(5),
    rate(m.sigmaSeconds).padStart(12)
  )
  console.log(row.join(' '))
  rmSync(raw, { force: true })
}
console.log(`(${process.version}, ${(await import('node:os')).cpus()[0].model}, ${(await import('node:os')).cpus().length} cores)`)
rmSync(dir, { recursive: true, force: true })
rmSync(bundle, { force: true })

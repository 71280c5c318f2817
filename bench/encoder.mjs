#!/usr/bin/env node
// The trace encoder's speed on programs outside the examples, in this thread, beside issue 13's
// goal (>= 20 M events/s per worker). bench/compression.mjs measures the examples; this one the
// heat stencil and a C++ program of standard containers (bench/targets), whole program, as
// `stride trace --launch P --no-heap` records them:
//   first      the native codec's first stage (PRSDs, loops folded, successor chains and
//              SEQUITUR, the residue's form): codecEncode, format v4 (production)
//   whole      NativePrsdSequiturEncoder.encode, the brotli second stage included (production)
//   v3 first, v3 whole   the same in format v3 (the residue always planes: what Strides before v4 wrote)
//   bytes      the chunks' stored bytes, v4 and v3
//   streams    the functions' stream detectors (Mohan's, a detector per function, window 100),
//              which a trace runs beside the encoder: NativeStreamDetectors.add over the same
//              accesses in batches of 64 K (a trace feeds its 256 K chunks: the state carries across), a fresh set per pass
// Each over the trace's own accesses (its raw export, `stride export --format raw`), in chunks of
// the writer's size (256 K events), a fresh encoder per pass as a session has; best of R passes.
// Corpus programs named after R (bench/corpus-programs.mjs: lz4, sort, jsoncpp, ...) are traced
// too, whole program, their first 30 M accesses (a corpus trace's chunks are these).
// Usage: npm run build && node bench/encoder.mjs [R] [corpus program ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const cli = join(root, 'out', 'main', 'cli.js')
const R = Number(process.argv[2] ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'stride-bench-encoder-'))
const CHUNK = 1 << 18 // MAX_STORED_CHUNK (src/main/store/session-writer.ts)

function run(cmd, args, cwd = undefined) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, cwd })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

// The production encoder, bundled from its TypeScript as the app builds it.
const { build } = await import('rolldown')
const entry = join(dir, 'entry.ts')
writeFileSync(
  entry,
  [
    `export { NativePrsdSequiturEncoder } from ${JSON.stringify(join(root, 'src/main/compress/native-codec.ts'))}`,
    `export { NativeStreamDetectors } from ${JSON.stringify(join(root, 'src/main/compress/native-streams.ts'))}`,
    `export { nativeCore } from ${JSON.stringify(join(root, 'src/main/native/core.ts'))}`
  ].join('\n')
)
const bundle = join(root, 'out', `bench-encoder-${process.pid}.cjs`)
await build({ input: entry, platform: 'node', logLevel: 'silent', output: { file: bundle, format: 'cjs' } })
const { NativePrsdSequiturEncoder, NativeStreamDetectors, nativeCore } = createRequire(import.meta.url)(bundle)
const Database = createRequire(join(root, 'package.json'))('better-sqlite3')
rmSync(bundle, { force: true })

run('cc', ['-O2', '-g', '-o', join(dir, 'heat'), join(root, 'bench', 'targets', 'heat.c')])
run('g++', ['-O2', '-g', '-o', join(dir, 'containers'), join(root, 'bench', 'targets', 'containers.cpp')])
const programs = [
  { name: 'heat 512 12', program: join(dir, 'heat'), args: ['512', '12'] },
  { name: 'containers', program: join(dir, 'containers'), args: [] }
]
const wanted = new Set(process.argv.slice(3))
if (wanted.size > 0) {
  const { corpusDir, prepareCorpus } = await import('./corpus-programs.mjs')
  for (const p of prepareCorpus(corpusDir(), (line) => console.log(line)).filter((c) => wanted.has(c.name)))
    programs.push({ name: p.name, program: p.program, args: p.args, cwd: p.cwd, limit: ['--max-events', String(30_000_000), '--stop-at-limit'] })
}

/** The raw export's accesses as the encoder takes them: points numbered by (pc, kind) in order of first access;
 * and each point's group for the stream detectors, its function in the session's point table. */
function accesses(file, session) {
  const db = new Database(session, { readonly: true })
  const functionOf = new Map()
  const groupOf = new Map()
  for (const r of db.prepare('SELECT pc, kind, function FROM points').all()) {
    const f = r.function ?? '?'
    if (!groupOf.has(f)) groupOf.set(f, groupOf.size)
    functionOf.set(r.pc * 4 + r.kind, groupOf.get(f))
  }
  db.close()
  const groups = []
  const buf = readFileSync(file)
  const n = buf.length / 24
  const points = new Uint32Array(n)
  const addresses = new Float64Array(n)
  const sizes = new Uint16Array(n)
  const ids = new Map()
  for (let i = 0, at = 0; i < n; i++, at += 24) {
    const key = (buf.readUInt32LE(at + 4) * 2 ** 32 + buf.readUInt32LE(at)) * 4 + buf.readUInt32LE(at + 20)
    let p = ids.get(key)
    if (p === undefined) {
      ids.set(key, (p = ids.size))
      groups.push(functionOf.get(key) ?? 0)
    }
    points[i] = p
    addresses[i] = buf.readUInt32LE(at + 12) * 2 ** 32 + buf.readUInt32LE(at + 8)
    sizes[i] = buf.readUInt32LE(at + 16)
  }
  return { n, points, addresses, sizes, pointCount: ids.size, groupOfPoint: Int32Array.from(groups), groups: groupOf.size }
}

/** Best of R passes of `encodeChunk` over the trace in CHUNK-event chunks, a fresh encoder each pass: seconds. */
function best(t, fresh) {
  let s = Infinity
  for (let r = 0; r < R; r++) {
    const encodeChunk = fresh()
    const started = process.hrtime.bigint()
    for (let at = 0; at < t.n; at += CHUNK) {
      const k = Math.min(CHUNK, t.n - at)
      encodeChunk(k, t.points.subarray(at, at + k), t.addresses.subarray(at, at + k), t.sizes.subarray(at, at + k))
    }
    s = Math.min(s, Number(process.hrtime.bigint() - started) / 1e9)
  }
  return s
}

console.log(`best of ${R} passes, in this thread; issue 13's goal: >= 20 M events/s`)
console.log('program            events   points  first s  first Mev/s  whole s  whole Mev/s  v3 first Mev/s  v3 whole Mev/s   bytes v4   bytes v3  groups  streams s  streams Mev/s')
for (const p of programs) {
  const session = join(dir, 's.stride')
  const raw = join(dir, 's.raw')
  run(process.execPath, [cli, 'trace', ...(p.limit ?? []), '--launch', p.program, '--no-heap', '--out', session, '--force', '--', ...p.args], p.cwd)
  run(process.execPath, [cli, 'export', session, '--format', 'raw', '--out', raw])
  const t = accesses(raw, session)
  rmSync(raw)
  const core = nativeCore()
  const firstOf = (version) => best(t, () => {
    const e = core.codecEncoderCreate(CHUNK, version)
    return (k, pts, adr, sz) => core.codecEncode(e, k, pts, adr, sz, t.pointCount)
  })
  const bytes = { 3: 0, 4: 0 }
  const wholeOf = (version) => best(t, () => {
    const e = new NativePrsdSequiturEncoder(CHUNK, { version })
    bytes[version] = 0
    return (k, pts, adr, sz) => (bytes[version] += e.encode(k, pts, adr, sz, t.pointCount).length)
  })
  let streams = Infinity
  for (let r = 0; r < R; r++) {
    const detectors = new NativeStreamDetectors(t.groupOfPoint, t.groups)
    const started = process.hrtime.bigint()
    for (let at = 0; at < t.n; at += 1 << 16) {
      const k = Math.min(1 << 16, t.n - at)
      detectors.add(k, t.points.subarray(at, at + k), t.addresses.subarray(at, at + k), t.sizes.subarray(at, at + k))
    }
    streams = Math.min(streams, Number(process.hrtime.bigint() - started) / 1e9)
    detectors.finish()
  }
  const first = firstOf(4)
  const whole = wholeOf(4)
  const firstPrev = firstOf(3)
  const wholePrev = wholeOf(3)
  console.log(
    [
      p.name.padEnd(14),
      String(t.n).padStart(10),
      String(t.pointCount).padStart(8),
      first.toFixed(2).padStart(8),
      (t.n / first / 1e6).toFixed(1).padStart(12),
      whole.toFixed(2).padStart(8),
      (t.n / whole / 1e6).toFixed(1).padStart(12),
      (t.n / firstPrev / 1e6).toFixed(1).padStart(15),
      (t.n / wholePrev / 1e6).toFixed(1).padStart(15),
      String(bytes[4]).padStart(10),
      String(bytes[3]).padStart(10),
      String(t.groups).padStart(7),
      streams.toFixed(2).padStart(10),
      (t.n / streams / 1e6).toFixed(1).padStart(14)
    ].join(' ')
  )
}
rmSync(dir, { recursive: true, force: true })

#!/usr/bin/env node
// The trace codec's second stage (brotli) at several qualities, on real programs' chunks: each
// corpus program (bench/corpus-programs.mjs) is traced whole once; its stored chunks are split
// into their two streams (the structure: grammar and descriptors; the residue: irregular
// addresses), decompressed, and each stream set is compressed again at quality Q (the window
// and size hint as the codec sets them), then decompressed: total bytes, compress and decompress
// milliseconds (best of R). What brotli-params.ts chooses from (large streams: quality 4).
// Usage: npm run build && node bench/second-stage.mjs [R] [program ...]   (default: lz4 bzip2 sort)
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import zlib from 'node:zlib'
import { corpusDir, prepareCorpus } from './corpus-programs.mjs'

const root = join(import.meta.dirname, '..')
const cli = join(root, 'out', 'main', 'cli.js')
const R = Number(process.argv[2] ?? 3)
const wanted = new Set(process.argv.slice(3).length > 0 ? process.argv.slice(3) : ['lz4', 'bzip2', 'sort'])
const Database = createRequire(join(root, 'package.json'))('better-sqlite3')
const QUALITIES = [1, 2, 4, 5, 8]
const work = mkdtempSync(join(tmpdir(), 'stride-bench-second-stage-'))

/** A LEB128 unsigned integer at p.i (the chunk header's, prsd-codec.ts ByteWriter.uint). */
function uint(b, p) {
  let v = 0
  for (let s = 0; ; s += 7) {
    const x = b[p.i++]
    v += (x & 127) * 2 ** s
    if (x < 128) return v
  }
}

/** The session's chunks as their two decompressed streams. */
function streams(session) {
  const db = new Database(session, { readonly: true })
  const structure = []
  const residue = []
  for (const { data } of db.prepare('SELECT data FROM trace_chunks ORDER BY seq').all()) {
    const p = { i: 1 }
    const sb = uint(data, p)
    const rb = uint(data, p)
    structure.push(zlib.brotliDecompressSync(data.subarray(p.i, p.i + sb)))
    if (rb > 0) residue.push(zlib.brotliDecompressSync(data.subarray(p.i + sb)))
  }
  db.close()
  return { structure, residue }
}

function measure(buffers, quality) {
  let best = { bytes: 0, compress: Infinity, decompress: Infinity }
  for (let r = 0; r < R; r++) {
    let t = process.hrtime.bigint()
    const out = buffers.map((b) =>
      zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_LGWIN]: b.length <= 65520 ? 16 : 22, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } })
    )
    const compress = Number(process.hrtime.bigint() - t) / 1e6
    t = process.hrtime.bigint()
    for (const o of out) zlib.brotliDecompressSync(o)
    const decompress = Number(process.hrtime.bigint() - t) / 1e6
    best = { bytes: out.reduce((n, o) => n + o.length, 0), compress: Math.min(best.compress, compress), decompress: Math.min(best.decompress, decompress) }
  }
  return best
}

const programs = prepareCorpus(corpusDir(), (line) => console.log(line)).filter((p) => wanted.has(p.name))
console.log(`best of ${R}; quality 4 is what brotli-params.ts takes for large streams (over 8 KiB of structure, 256 KiB of residue)`)
console.log('program   stream      raw MB  quality  bytes      vs q5   compress ms  decompress ms')
try {
  for (const p of programs) {
    const session = join(work, `${p.name}.stride`)
    const r = spawnSync(process.execPath, [cli, 'trace', '--out', session, '--force', '--launch', p.program, '--', ...p.args], { cwd: p.cwd, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'ignore', 'pipe'] })
    if (r.status !== 0) throw new Error(`stride trace ${p.name} failed: ${r.stderr.slice(-800)}`)
    const s = streams(session)
    for (const [name, buffers] of [['structure', s.structure], ['residue', s.residue]]) {
      const raw = buffers.reduce((n, b) => n + b.length, 0)
      const rows = QUALITIES.map((q) => [q, measure(buffers, q)])
      const q5 = rows.find(([q]) => q === 5)[1].bytes
      for (const [q, m] of rows)
        console.log(`${p.name.padEnd(9)} ${name.padEnd(10)} ${(raw / 2 ** 20).toFixed(1).padStart(7)}  ${String(q).padStart(7)}  ${String(m.bytes).padStart(9)}  ${(((m.bytes - q5) / q5) * 100).toFixed(1).padStart(5)}%  ${m.compress.toFixed(0).padStart(11)}  ${m.decompress.toFixed(0).padStart(13)}`)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

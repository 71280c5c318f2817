/**
 * The compressed trace against what the tracer produced, for every bundled example, and the
 * stream-metric shapes of METRIC section 10 (Fig. 9(b), Fig. 13(b)). The writer's test hook
 * (STRIDE_TRACE_DUMP) keeps the uncompressed batches beside the session.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { example, fixedEnv, ROOT, strideOk, tempDir } from '../testing/cli-runner'
import { iterateChunks, openSessionDb } from '../store/session-reader'

const dir = tempDir('compress')
const env = fixedEnv(dir)

interface Example {
  name: string
  functions: string[]
}
const examples = JSON.parse(readFileSync(join(ROOT, 'resources', 'examples', 'examples.json'), 'utf8')) as Example[]

interface PointInfo {
  id: string
  kind: string
  variable: string | null
  function: string | null
  accesses: number
  regularity: number
  meanStreamLength: number
  strides: Array<{ stride: number; fraction: number }>
}
interface Info {
  events: number
  storedBytes: number
  points: PointInfo[]
  functionStreams: Array<{ function: string; spatialRegularity: number; advice: Array<{ optimization: string; evidence: string }> }>
  functionStreamsPending?: boolean
}

/** Traces an example (its own functions; long ones capped) with the dump hook on. */
function trace(name: string, functions: string[], maxEvents: number | null): { session: string; dump: string } {
  const session = join(dir, `${name}.stride`)
  const dump = join(dir, `${name}.dump`)
  const args = ['trace', '--launch', example(name), '--functions', functions.join(','), '--out', session]
  if (maxEvents) args.push('--max-events', String(maxEvents))
  strideOk(args, { ...env, STRIDE_TRACE_DUMP: dump })
  return { session, dump }
}

/** The dumped batches, concatenated. */
function readDump(dump: string): { points: Uint32Array; addresses: Float64Array; sizes: Uint16Array } {
  const raw = readFileSync(dump)
  let total = 0
  for (let at = 0; at < raw.length; at += 4 + 14 * raw.readUInt32LE(at)) total += raw.readUInt32LE(at)
  const points = new Uint32Array(total)
  const addresses = new Float64Array(total)
  const sizes = new Uint16Array(total)
  let n = 0
  for (let at = 0; at < raw.length; ) {
    const count = raw.readUInt32LE(at)
    const copy = (from: number, bytes: number) => {
      const b = new Uint8Array(count * bytes)
      b.set(raw.subarray(from, from + count * bytes))
      return b.buffer
    }
    points.set(new Uint32Array(copy(at + 4, 4)), n)
    addresses.set(new Float64Array(copy(at + 4 + 4 * count, 8)), n)
    sizes.set(new Uint16Array(copy(at + 4 + 12 * count, 2)), n)
    n += count
    at += 4 + 14 * count
  }
  return { points, addresses, sizes }
}

const bytes = (a: Uint32Array | Float64Array | Uint16Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

/** Compares the session's decoded trace with the dumped batches, access for access. */
function expectSameTrace(session: string, dump: string): number {
  const want = readDump(dump)
  const db = openSessionDb(session, { readonly: true })
  try {
    const codecs = db.prepare('SELECT DISTINCT codec FROM trace_chunks').all() as Array<{ codec: string }>
    expect(codecs.map((c) => c.codec)).toEqual(['prsd-sequitur-v4'])
    const pointCount = (db.prepare('SELECT COUNT(*) AS n FROM points').get() as { n: number }).n
    let at = 0
    for (const chunk of iterateChunks(db, pointCount)) {
      expect(chunk.count).toBeLessThanOrEqual(65536)
      const end = at + chunk.count
      expect(end).toBeLessThanOrEqual(want.points.length)
      // Compare as whole buffers (fast), then say where they differ if they do.
      if (!bytes(chunk.points).equals(bytes(want.points.subarray(at, end)))) expect(Array.from(chunk.points)).toEqual(Array.from(want.points.subarray(at, end)))
      if (!bytes(chunk.addresses).equals(bytes(want.addresses.subarray(at, end)))) expect(Array.from(chunk.addresses)).toEqual(Array.from(want.addresses.subarray(at, end)))
      if (!bytes(chunk.sizes).equals(bytes(want.sizes.subarray(at, end)))) expect(Array.from(chunk.sizes)).toEqual(Array.from(want.sizes.subarray(at, end)))
      at = end
    }
    expect(at).toBe(want.points.length)
    return at
  } finally {
    db.close()
  }
}

function info(session: string, ...extra: string[]): Info {
  return JSON.parse(strideOk(['info', session, '--json', ...extra], env)) as Info
}

describe('prsd-sequitur-v4 sessions are lossless for every example', () => {
  for (const ex of examples) {
    it(`${ex.name}: decoded chunks equal the tracer's batches (order, addresses, sizes)`, () => {
      const { session, dump } = trace(ex.name, ex.functions, ex.name === 'mult' ? null : 500_000)
      const events = expectSameTrace(session, dump)
      expect(events).toBe(info(session).events)
      expect(events).toBeGreaterThan(1000)
    })
  }

  it('export --format raw writes the decoded trace with each point\'s pc and kind', () => {
    const { session, dump } = trace('reuse', ['do_sum', 'do_mult'], null)
    const out = join(dir, 'reuse.raw')
    strideOk(['export', session, '--format', 'raw', '--out', out], env)
    const records = readFileSync(out)
    const db = openSessionDb(session, { readonly: true })
    const rows = db.prepare('SELECT idx, pc, kind FROM points ORDER BY idx').all() as Array<{ idx: number; pc: number; kind: number }>
    db.close()
    const raw = readFileSync(dump)
    const expected: Buffer[] = []
    let at = 0
    while (at < raw.length) {
      const count = raw.readUInt32LE(at)
      const base = at + 4
      const buf = Buffer.alloc(count * 24)
      for (let i = 0; i < count; i++) {
        const p = raw.readUInt32LE(base + 4 * i)
        buf.writeBigUInt64LE(BigInt(rows[p]!.pc), i * 24)
        buf.writeBigUInt64LE(BigInt(raw.readDoubleLE(base + 4 * count + 8 * i)), i * 24 + 8)
        buf.writeUInt32LE(raw.readUInt16LE(base + 12 * count + 2 * i), i * 24 + 16)
        buf.writeUInt32LE(rows[p]!.kind, i * 24 + 20)
      }
      expected.push(buf)
      at = base + 14 * count
    }
    const want = Buffer.concat(expected)
    expect(records.length).toBe(want.length)
    expect(records.equals(want)).toBe(true)
  })
})

describe('stream metrics reproduce METRIC section 10', () => {
  it('mult (Fig. 13(b)): B read regularity 1.0 with one stride of 8000; A read one stride of 8', () => {
    const session = join(dir, 'mult.stride')
    const points = info(session).points
    const b = points.find((p) => p.variable === 'B' && p.kind === 'read')!
    const a = points.find((p) => p.variable === 'A' && p.kind === 'read')!
    expect(b.regularity).toBe(1)
    expect(b.strides).toEqual([{ stride: 8000, fraction: 1 }])
    expect(b.meanStreamLength).toBe(1000)
    expect(a.regularity).toBe(1)
    expect(a.strides).toEqual([{ stride: 8, fraction: 1 }])
    // Mohan: long streams with large strides, computed on request (--streams) and then kept.
    expect(info(session)).toMatchObject({ functionStreams: [], functionStreamsPending: true })
    const computed = info(session, '--streams').functionStreams
    expect(info(session)).toMatchObject({ functionStreams: computed, functionStreamsPending: false })
    const f = computed.find((x) => x.function === 'do_mult')!
    expect(f.spatialRegularity).toBeGreaterThan(0.99)
    expect(f.advice.map((x) => x.optimization)).toContain('loop interchange / copying, stream remapping')
  })

  it('reuse (Fig. 9(b)): indirect reads of C and D regularity ~0, ind[] read 1.0 with stride 4', () => {
    const session = join(dir, 'reuse.stride')
    const { points, functionStreams } = info(session, '--streams')
    const read = (v: string) => points.find((p) => p.variable === v && p.kind === 'read' && p.function === 'do_mult')!
    expect(read('C').regularity).toBeLessThan(0.01)
    expect(read('D').regularity).toBeLessThan(0.01)
    expect(read('C').strides).toEqual([])
    expect(read('ind').regularity).toBe(1)
    expect(read('ind').strides).toEqual([{ stride: 4, fraction: 1 }])
    expect(read('ind').meanStreamLength).toBe(1500)
    const sum = points.find((p) => p.variable === 'A' && p.kind === 'read' && p.function === 'do_sum')!
    expect(sum.regularity).toBe(1)
    expect(sum.strides).toEqual([{ stride: 8, fraction: 1 }])
    const mult = functionStreams.find((x) => x.function === 'do_mult')!
    expect(mult.spatialRegularity).toBeLessThan(0.6)
    expect(mult.advice[0]!.optimization).toBe('scatter/gather using an indirection vector')
  })
})


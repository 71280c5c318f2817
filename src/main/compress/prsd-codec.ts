/**
 * Chunk codecs `prsd-sequitur-v1` to `-v4` (METRIC section 3): a chunk of accesses in
 * execution order is split into
 *   - the order of access points, as a SEQUITUR grammar;
 *   - per point, the PRSDs/RSDs its addresses form (section 4) and its irregular addresses;
 *   - per point, its access size, plus the rare accesses whose size differs.
 * Descriptors and the grammar ("structure") and the irregular addresses ("residue") then go
 * through a second-stage compressor (brotli) each on its own, as METRIC runs two instances
 * of its second stage.
 *
 * v2 folds loops in the order of access points before SEQUITUR (fold.ts: a body repeated r
 * times becomes the body and a repeat marker), so SEQUITUR sees a few symbols per loop, not
 * one per access; everything else is as in v1.
 *
 * v3 chains the folded order before SEQUITUR (chain.ts: a run of symbols that each follow
 * their predecessor's first successor in the chunk becomes one chain marker), so SEQUITUR
 * sees the branches of straight-line code, not each of its accesses; everything else is as
 * in v2.
 *
 * v4 lays the residue out in one of two forms, chosen per chunk (residue.ts): byte planes as
 * before, or each address's zigzagged difference from the one before as a varint, after a
 * form byte; everything else is as in v3.
 *
 * Layout (all integers LEB128 varints unless said otherwise):
 *   byte   format (1 to 4: the codec's version)
 *   uint   structure bytes (compressed), uint residue bytes (compressed; 0 = none)
 *   brotli(structure) brotli(residue)
 * structure:
 *   uint count
 *   v2 to v4: uint base (the encoder's point count), uint markers, per marker
 *     uint level + FOLD_LEVELS * (k - 1), uint r - 2 (fold.ts), or (v3, v4) a chain marker
 *     uint CHAIN_SHAPE, uint L - 1 (chain.ts); the grammar's terminal t is point t below
 *     base, marker t - base from base on
 *   grammar (see Sequitur.writeGrammar)
 *   uint points used; per point, ascending: uint point delta, uint size, uint irregular
 *     addresses, uint descriptors, and per descriptor: uint irregular addresses before it,
 *     uint height, int start - previous start of this point, then per level outermost first
 *     uint length, int stride
 *   uint size exceptions; per exception: uint event index delta, uint size
 * residue: the irregular addresses, points in the order above, each point's in order, as
 *   eight byte planes (byte k of every address, then byte k+1 ...): high planes of nearby
 *   addresses are constant and vanish in the second stage, low planes keep only their
 *   entropy. v4: byte form, then the planes (form 0) or per address the varint of the
 *   zigzagged difference from the address before (form 1; the first from 0).
 *
 * Each chunk is self-contained: the detector and the grammar start afresh, so a session cut
 * short keeps every chunk it committed, and any chunk decodes alone.
 */
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib'
import { brotliParams, brotliSetting, residueQuality, residueQualityV4, structureQuality, type BrotliSetting } from './brotli-params'
import { ByteReader, ByteWriter, writeSizeExceptions } from './bytes'
import { PrsdDetector, type Prsd, type PrsdSink } from './prsd'
import { RsdMetrics } from './rsd-metrics'
import { CHAIN_LEVEL, SuccessorChains, unchain } from './chain'
import { FOLD_LEVELS, FOLD_MAX_BODY, LoopFolder, unfold, type FoldMarkers } from './fold'
import { GrammarCursor, readGrammar, Sequitur, writeOrder } from './sequitur'
import { planesOf, readResidue, residueV4 } from './residue'
import { grownFor } from '../typed-arrays'

export const PRSD_CODEC = 'prsd-sequitur-v1'
export const PRSD_CODEC_V2 = 'prsd-sequitur-v2'
export const PRSD_CODEC_V3 = 'prsd-sequitur-v3'
export const PRSD_CODEC_V4 = 'prsd-sequitur-v4'
/** The codec's versions: each its name's suffix and its chunks' format byte. */
export const PRSD_VERSIONS = [1, 2, 3, 4] as const
export type PrsdVersion = (typeof PRSD_VERSIONS)[number]
/** What new chunks are written with. */
export const PRSD_VERSION: PrsdVersion = 4
export const prsdCodecName = (version: PrsdVersion): string => `prsd-sequitur-v${version}`
/** The version a codec name stands for (undefined: another codec). */
export const prsdVersionOf = (codec: string): PrsdVersion | undefined => PRSD_VERSIONS.find((v) => prsdCodecName(v) === codec)
const isPrsdVersion = (format: number): format is PrsdVersion => (PRSD_VERSIONS as readonly number[]).includes(format)
/** The shape a chain marker is written with: the first past fold's (level, k) shapes. */
export const CHAIN_SHAPE = FOLD_LEVELS * FOLD_MAX_BODY

export interface EncodeStats {
  events: number
  descriptors: number
  irregular: number
  rules: number
  structureBytes: number
  residueBytes: number
}

/** Collects the detector's output per point, in order. */
class PointOutput implements PrsdSink {
  /** Per point: [irregular before, height, start, (length, stride) outermost first]... */
  items: number[][] = []
  irr: number[][] = []
  pending: Int32Array = new Int32Array(0)
  touched: number[] = []
  descriptors = 0
  irregularCount = 0

  reset(points: number): void {
    for (const p of this.touched) {
      this.items[p]!.length = 0
      this.irr[p]!.length = 0
      this.pending[p] = 0
    }
    this.touched.length = 0
    if (this.pending.length < points) this.pending = new Int32Array(Math.max(points, this.pending.length * 2))
    this.descriptors = 0
    this.irregularCount = 0
  }

  private touch(p: number): void {
    if (!this.items[p]) {
      this.items[p] = []
      this.irr[p] = []
    }
    if (this.items[p]!.length === 0 && this.irr[p]!.length === 0) this.touched.push(p)
  }

  descriptor(p: number, d: Prsd): void {
    this.touch(p)
    const it = this.items[p]!
    it.push(this.pending[p]!, d.height, d.start)
    for (let c: Prsd | null = d; c; c = c.child) it.push(c.length, c.stride)
    this.pending[p] = 0
    this.descriptors++
  }

  irregular(p: number, address: number): void {
    this.touch(p)
    this.irr[p]!.push(address)
    this.pending[p]!++
    this.irregularCount++
  }
}

export interface EncoderOptions {
  /** The format written: 3 (default, loops folded and successors chained before SEQUITUR), or 2 or 1 (as older Strides wrote). */
  version?: PrsdVersion
  /** brotli quality for the structure stream, default by its size (brotli-params.ts). */
  structureQuality?: number
  /** brotli quality for the irregular residue, default by its size and content (brotli-params.ts). */
  residueQuality?: number
}

/**
 * Encodes chunks one after another. Keeps its buffers between chunks and the METRIC stream
 * metrics across them (`metrics`).
 */
export class PrsdSequiturEncoder {
  private readonly sequitur: Sequitur
  private readonly folder: LoopFolder
  private readonly chains: SuccessorChains
  readonly version: PrsdVersion
  private readonly output = new PointOutput()
  private readonly detector: PrsdDetector
  readonly metrics = new RsdMetrics()
  private sizeOf = new Int32Array(0)
  private readonly structure = new ByteWriter(1 << 16)
  private readonly residue = new ByteWriter(1 << 16)
  /** The chunk's order of points (folded, chained), as it comes: its grammar is built when it is written (writeOrder). */
  private order = new Int32Array(256)
  private orderLength = 0
  private readonly append = (symbol: number): void => {
    this.order = grownFor(this.order, this.orderLength)
    this.order[this.orderLength++] = symbol
  }
  lastStats: EncodeStats | null = null

  constructor(readonly maxChunkEvents = 1 << 16, private readonly options: EncoderOptions = {}) {
    this.sequitur = new Sequitur(maxChunkEvents)
    this.version = options.version ?? PRSD_VERSION
    const append = this.append
    this.chains = new SuccessorChains((length) => this.folder.markerSymbol(CHAIN_LEVEL, 1, length), append)
    this.folder = new LoopFolder(this.version >= 3 ? (symbol) => this.chains.add(symbol) : append)
    this.detector = new PrsdDetector(0, this.output)
  }

  /** The codec name its chunks are stored under. */
  get codec(): string {
    return prsdCodecName(this.version)
  }

  encode(count: number, points: Uint32Array, addresses: Float64Array, sizes: Uint16Array, pointCount: number): Buffer {
    if (count > this.maxChunkEvents) throw new Error(`chunk of ${count} events exceeds ${this.maxChunkEvents}`)
    const seq = this.sequitur
    const folder = this.folder
    const fold = this.version >= 2
    const det = this.detector
    const metrics = this.metrics
    seq.reset()
    this.orderLength = 0
    folder.reset(pointCount)
    this.chains.reset()
    det.grow(pointCount)
    metrics.grow(pointCount)
    this.output.reset(pointCount)
    if (this.sizeOf.length < pointCount) this.sizeOf = new Int32Array(Math.max(pointCount, this.sizeOf.length * 2))
    const sizeOf = this.sizeOf
    sizeOf.fill(-1, 0, pointCount)
    const exceptions: number[] = []
    for (let i = 0; i < count; i++) {
      const p = points[i]!
      if (p >= pointCount) throw new Error(`access point ${p} is outside the point table (${pointCount})`)
      const a = addresses[i]!
      if (fold) folder.add(p)
      else this.append(p)
      det.add(p, a)
      metrics.add(p, a)
      const s = sizes[i]!
      const known = sizeOf[p]!
      if (known !== s) {
        if (known === -1) sizeOf[p] = s
        else exceptions.push(i, s)
      }
    }
    det.flush()

    const out = this.output
    const w = this.structure
    w.reset()
    w.uint(count)
    if (fold) {
      folder.flush()
      this.chains.flush()
      writeMarkers(w, pointCount, folder.markers)
    }
    const rules = writeOrder(w, this.order, this.orderLength, seq)
    const used = out.touched.slice().sort((a, b) => a - b)
    w.uint(used.length)
    const r = this.residue
    r.reset()
    let prevPoint = 0
    const irrAll: number[] = []
    for (const p of used) {
      w.uint(p - prevPoint)
      prevPoint = p
      w.uint(sizeOf[p]!)
      const irr = out.irr[p]!
      const items = out.items[p]!
      w.uint(irr.length)
      let descriptors = 0
      for (let k = 0; k < items.length; k += 5 + 2 * items[k + 1]!) descriptors++
      w.uint(descriptors)
      let prevStart = 0
      for (let k = 0; k < items.length; ) {
        const height = items[k + 1]!
        w.uint(items[k]!)
        w.uint(height)
        w.int(items[k + 2]! - prevStart)
        prevStart = items[k + 2]!
        for (let l = 0; l <= height; l++) {
          w.uint(items[k + 3 + 2 * l]!)
          w.int(items[k + 4 + 2 * l]!)
        }
        k += 5 + 2 * height
      }
      for (const a of irr) irrAll.push(a)
    }
    writeSizeExceptions(w, exceptions)
    const n = irrAll.length
    const residue = n === 0 ? null : this.version >= 4 ? residueV4(irrAll, n) : planesOf(irrAll, n)
    const framed = frameChunk(w.view(), residue, count, this.options, this.version)
    this.lastStats = {
      events: count,
      descriptors: out.descriptors,
      irregular: out.irregularCount,
      rules,
      structureBytes: framed.structureBytes,
      residueBytes: framed.residueBytes
    }
    return framed.data
  }
}

/** v2's and v3's markers: the base their symbols start from, then each marker's shape. */
function writeMarkers(w: ByteWriter, base: number, markers: FoldMarkers): void {
  w.uint(base)
  w.uint(markers.level.length)
  for (let m = 0; m < markers.level.length; m++) {
    if (markers.level[m] === CHAIN_LEVEL) {
      w.uint(CHAIN_SHAPE)
      w.uint(markers.r[m]! - 1)
    } else {
      w.uint(markers.level[m]! + FOLD_LEVELS * (markers.k[m]! - 1))
      w.uint(markers.r[m]! - 2)
    }
  }
}

function readMarkers(r: ByteReader, count: number, chains: boolean): { base: number; markers: FoldMarkers } {
  const base = r.uint()
  const n = r.uint()
  if (base > 2 ** 30) throw new Error(`its markers start at ${base}`)
  if (n > count) throw new Error(`it has ${n} repeat markers for ${count} accesses`)
  const markers: FoldMarkers = { level: [], k: [], r: [] }
  for (let m = 0; m < n; m++) {
    const shape = r.uint()
    if (chains && shape === CHAIN_SHAPE) {
      const length = r.uint() + 1
      if (length > count) throw new Error('a chain marker is out of range')
      markers.level.push(CHAIN_LEVEL)
      markers.k.push(1)
      markers.r.push(length)
      continue
    }
    if (shape >= CHAIN_SHAPE) throw new Error('a repeat marker is out of range')
    markers.level.push(shape % FOLD_LEVELS)
    markers.k.push(Math.floor(shape / FOLD_LEVELS) + 1)
    markers.r.push(r.uint() + 2)
  }
  return { base, markers }
}

/**
 * The second stage and the header: brotli of the structure and of the residue planes (none
 * when nothing is irregular), with Node's zlib: the reference's. The native encoder runs the
 * same settings (secondStageSettings) in the core and frames with `framed`.
 */
export function frameChunk(structure: Uint8Array, planes: Uint8Array | null, events: number, options: EncoderOptions = {}, version: PrsdVersion = 1): { data: Buffer; structureBytes: number; residueBytes: number } {
  const residue = planes ? brotliCompressSync(planes, brotliParams(planes, residueQualityOf(planes, options, version))) : null
  return framed(brotliCompressSync(structure, brotliParams(structure, structureQualityOf(structure, events, options))), residue, version)
}

/** The brotli settings of a chunk's structure and residue (null when it has none). */
export function secondStageSettings(structure: Uint8Array, planes: Uint8Array | null, events: number, options: EncoderOptions = {}, version: PrsdVersion = 1): { structure: BrotliSetting; residue: BrotliSetting | null } {
  return {
    structure: brotliSetting(structure, structureQualityOf(structure, events, options)),
    residue: planes ? brotliSetting(planes, residueQualityOf(planes, options, version)) : null
  }
}

const structureQualityOf = (structure: Uint8Array, events: number, options: EncoderOptions): number => options.structureQuality ?? structureQuality(structure.length, events)
const residueQualityOf = (residue: Uint8Array, options: EncoderOptions, version: PrsdVersion): number =>
  options.residueQuality ?? (version < 4 ? residueQuality(residue) : residueQualityV4(residue))

/** The chunk's bytes: the header, then the compressed structure and residue. */
export function framed(compressed: Buffer, residue: Buffer | null, version: PrsdVersion): { data: Buffer; structureBytes: number; residueBytes: number } {
  const head = new ByteWriter(16)
  head.byte(version)
  head.uint(compressed.length)
  head.uint(residue ? residue.length : 0)
  const data = Buffer.concat(residue ? [head.view(), compressed, residue] : [head.view(), compressed])
  return { data, structureBytes: compressed.length, residueBytes: residue ? residue.length : 0 }
}

/**
 * A chunk's format and two compressed streams, after checking its header (residue empty when
 * none). `version`, when the store says which codec wrote the chunk, must match its format.
 */
export function splitChunk(data: Uint8Array, version?: PrsdVersion): { format: PrsdVersion; structure: Uint8Array; residue: Uint8Array } {
  const head = new ByteReader(data)
  const format = head.byte()
  if (!isPrsdVersion(format)) throw new Error(`unknown prsd-sequitur format ${format}`)
  if (version !== undefined && format !== version) throw new Error(`it is in format ${format}, stored as ${prsdCodecName(version)}`)
  const structureBytes = head.uint()
  const residueBytes = head.uint()
  const at = head.pos
  if (at + structureBytes + residueBytes !== data.length) throw new Error('chunk length does not match its header')
  return { format, structure: data.subarray(at, at + structureBytes), residue: data.subarray(at + structureBytes) }
}

export interface DecodedAccesses {
  count: number
  points: Uint32Array
  addresses: Float64Array
  sizes: Uint16Array
}

/** No stored chunk holds more (writers store at most 2^18 accesses per chunk). */
const MAX_DECODED_ACCESSES = 1 << 20

/**
 * Decodes one `prsd-sequitur-v1` to `-v4` chunk (its format byte says which) straight from its
 * stored bytes (the readable reference; production decodes natively, native-codec.ts). Every
 * loop and every allocation is bounded by the chunk's event count (`expectedCount`, as the
 * store declares it, when given): a damaged or crafted chunk throws, it never hangs or expands
 * past what it declares.
 */
export function decodePrsdSequiturChunk(data: Uint8Array, pointCount: number, expectedCount?: number, version?: PrsdVersion): DecodedAccesses {
  const parts = splitChunk(data, version)
  // Bounded: a few crafted bytes must not expand to gigabytes (grammar and descriptors of the
  // largest chunk fit in 64 MiB; its residue is 8 bytes per access at most).
  const structure = brotliDecompressSync(parts.structure, { maxOutputLength: 64 << 20 })
  const planes = parts.residue.length > 0 ? brotliDecompressSync(parts.residue, { maxOutputLength: 8 * MAX_DECODED_ACCESSES + 1 }) : new Uint8Array(0)
  const r = new ByteReader(structure)
  const count = r.uint()
  if (expectedCount !== undefined && count !== expectedCount) throw new Error(`it holds ${count} accesses, not the ${expectedCount} it declares`)
  if (count > MAX_DECODED_ACCESSES) throw new Error(`it claims ${count} accesses`)
  const folding = parts.format >= 2 ? readMarkers(r, count, parts.format >= 3) : null
  const grammar = readGrammar(r)
  let points: Uint32Array = new Uint32Array(count)
  const expansion = new GrammarCursor(grammar)
  const got = expansion.fill(points, 0, count)
  if (folding) {
    if (expansion.fill(new Uint32Array(1), 0, 1) !== 0) throw new Error('its grammar expands to more symbols than it declares accesses')
    const { base, markers } = folding
    for (let i = 0; i < got; i++) if (points[i]! >= base + markers.level.length) throw new Error(`its grammar names symbol ${points[i]} of ${base} + ${markers.level.length}`)
    let length = got
    if (parts.format >= 3) ({ symbols: points, length } = unchain(points, got, base, markers, pointCount, count))
    points = unfold(points, length, base, markers, count)
  } else if (got !== count) throw new Error(`grammar expands to ${got} accesses, expected ${count}`)

  // Per point: where its addresses go in a scratch array laid out point by point.
  const perPoint = new Uint32Array(pointCount + 1)
  for (let i = 0; i < count; i++) {
    const p = points[i]!
    if (p >= pointCount) throw new Error(`access point ${p} is outside the point table (${pointCount})`)
    perPoint[p + 1]!++
  }
  for (let p = 0; p < pointCount; p++) perPoint[p + 1]! += perPoint[p]!
  const byPoint = new Float64Array(count)
  const sizeOf = new Uint16Array(pointCount)
  const irregulars = readResidue(planes, parts.format, count)
  let irrIndex = 0
  const readIrregular = (): number => {
    if (irrIndex >= irregulars.length) throw new Error('irregular addresses run out')
    return irregulars[irrIndex++]!
  }
  const used = r.uint()
  let point = 0
  const lengths = new Float64Array(16)
  const strides = new Float64Array(16)
  const counter = new Float64Array(16)
  for (let u = 0; u < used; u++) {
    point += r.uint()
    if (point >= pointCount) throw new Error(`access point ${point} is outside the point table (${pointCount})`)
    sizeOf[point] = r.uint()
    let irregular = r.uint()
    const descriptors = r.uint()
    let pos = perPoint[point]!
    const end = perPoint[point + 1]!
    let prevStart = 0
    for (let d = 0; d < descriptors; d++) {
      let before = r.uint()
      irregular -= before
      if (irregular < 0 || pos + before > end) throw new Error('irregular address counts do not add up')
      while (before-- > 0) byPoint[pos++] = readIrregular()
      const height = r.uint()
      if (height >= 16) throw new Error(`descriptor height ${height} is too deep`)
      const start = prevStart + r.int()
      prevStart = start
      let total = 1
      for (let l = height; l >= 0; l--) {
        lengths[l] = r.uint()
        strides[l] = r.int()
        counter[l] = 0
        // A level of length 0 would spin the odometer over the others with nothing to write.
        if (lengths[l]! === 0) throw new Error('a descriptor level has length 0')
        total *= lengths[l]!
      }
      if (pos + total > end) throw new Error('descriptors expand past the point\'s accesses')
      // Odometer over the levels, innermost (0) fastest.
      let base = start
      for (;;) {
        const len0 = lengths[0]!
        const s0 = strides[0]!
        for (let i = 0; i < len0; i++) byPoint[pos++] = base + i * s0
        let l = 1
        while (l <= height) {
          counter[l]!++
          if (counter[l]! < lengths[l]!) break
          counter[l] = 0
          l++
        }
        if (l > height) break
        base = start
        for (let k = 1; k <= height; k++) base += counter[k]! * strides[k]!
      }
    }
    if (pos + irregular !== end) throw new Error(`point ${point} has ${end - pos - irregular} accesses unaccounted for`)
    while (irregular-- > 0) byPoint[pos++] = readIrregular()
  }
  // Addresses are exact doubles only below 2^53 (user space is below 2^57): anything else is damage.
  for (let i = 0; i < count; i++) {
    const a = byPoint[i]!
    if (!(a >= 0 && a <= Number.MAX_SAFE_INTEGER && Number.isInteger(a))) throw new Error(`address ${a} is not a valid address`)
  }
  const sizes = new Uint16Array(count)
  const addresses = new Float64Array(count)
  const cursor = perPoint.slice(0, pointCount)
  for (let i = 0; i < count; i++) {
    const p = points[i]!
    addresses[i] = byPoint[cursor[p]!++]!
    sizes[i] = sizeOf[p]!
  }
  const exceptions = r.uint()
  let index = 0
  for (let k = 0; k < exceptions; k++) {
    index += r.uint()
    if (index >= count) throw new Error('size exception outside the chunk')
    sizes[index] = r.uint()
  }
  return { count, points, addresses, sizes }
}

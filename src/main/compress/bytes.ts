/**
 * Growable little-endian byte writer/reader with LEB128 varints and zigzag for signed values.
 * Values are JavaScript numbers up to 2^53 (addresses are below 2^48), so varints use
 * arithmetic rather than 32-bit bit operators.
 */

export class ByteWriter {
  private buf: Uint8Array
  length = 0

  constructor(capacity = 1024) {
    this.buf = new Uint8Array(capacity)
  }

  private grow(extra: number): void {
    if (this.length + extra <= this.buf.length) return
    let cap = this.buf.length * 2
    while (cap < this.length + extra) cap *= 2
    const next = new Uint8Array(cap)
    next.set(this.buf.subarray(0, this.length))
    this.buf = next
  }

  byte(v: number): void {
    this.grow(1)
    this.buf[this.length++] = v
  }

  /** Unsigned varint (0 <= v < 2^53). */
  uint(v: number): void {
    this.grow(8)
    const b = this.buf
    while (v >= 0x80) {
      b[this.length++] = (v % 0x80) | 0x80
      v = Math.floor(v / 0x80)
    }
    b[this.length++] = v
  }

  /** Signed varint (zigzag); |v| < 2^52. */
  int(v: number): void {
    this.uint(v < 0 ? -2 * v - 1 : 2 * v)
  }

  bytes(data: Uint8Array): void {
    this.grow(data.length)
    this.buf.set(data, this.length)
    this.length += data.length
  }

  reset(): void {
    this.length = 0
  }

  view(): Uint8Array {
    return this.buf.subarray(0, this.length)
  }
}

export class ByteReader {
  pos = 0
  constructor(private readonly buf: Uint8Array, start = 0, private readonly end = buf.length) {
    this.pos = start
  }

  get done(): boolean {
    return this.pos >= this.end
  }

  byte(): number {
    if (this.pos >= this.end) throw new Error('unexpected end of data')
    return this.buf[this.pos++]!
  }

  uint(): number {
    let v = 0
    let scale = 1
    for (;;) {
      if (this.pos >= this.end) throw new Error('unexpected end of data in a varint')
      const b = this.buf[this.pos++]!
      v += (b & 0x7f) * scale
      if (b < 0x80) return v
      scale *= 0x80
      if (scale > 2 ** 56) throw new Error('varint is too long')
    }
  }

  int(): number {
    const z = this.uint()
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2
  }

  bytes(n: number): Uint8Array {
    if (this.pos + n > this.end) throw new Error('unexpected end of data')
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }
}

/**
 * Accesses whose size differs from their point's usual one, as (event index, size) pairs:
 * a count, then per pair the index's delta from the previous one and the size. Both codecs
 * store sizes this way.
 */
export function writeSizeExceptions(w: ByteWriter, exceptions: number[]): void {
  w.uint(exceptions.length / 2)
  let prevIndex = 0
  for (let k = 0; k < exceptions.length; k += 2) {
    w.uint(exceptions[k]! - prevIndex)
    prevIndex = exceptions[k]!
    w.uint(exceptions[k + 1]!)
  }
}

/**
 * A chunk's irregular addresses before the second stage (the residue, prsd-codec.ts). Up to v3:
 * eight byte planes. From v4 a form byte, then either those planes (form 0) or each address's
 * difference from the one before (the first's from 0) zigzagged into a LEB128 varint (form 1).
 * Deltas halve a C++ program's residue after brotli and compress and decode it 2-3x faster;
 * addresses picked at random compress better as planes (26% smaller there). Which one a chunk
 * takes is tried on its first RESIDUE_SAMPLE addresses: both forms through brotli at quality 1,
 * the smaller wins (ties: deltas); a residue of RESIDUE_UNTRIED addresses or fewer takes deltas. The native core does the same (src/codec/residue.c), with
 * the same brotli, so both write the same bytes.
 */
import { brotliCompressSync, constants } from 'node:zlib'

export const RESIDUE_PLANES = 0
export const RESIDUE_DELTAS = 1
/** Addresses the form is tried on. */
export const RESIDUE_SAMPLE = 4096
/**
 * Residues of at most this many addresses take deltas untried: the trial's two brotli calls
 * cost more than such a chunk's whole first stage (conflict's encoder 79 -> 53 M events/s),
 * and a few hundred varints are smaller than their planes before any compression.
 */
export const RESIDUE_UNTRIED = 512

const TWO_32 = 0x100000000
const TWO_52 = 2 ** 52

/** Eight byte planes of the first n addresses (byte k of every address, then byte k + 1 ...). */
export function planesOf(addresses: ArrayLike<number>, n: number, into?: Uint8Array, at = 0): Uint8Array {
  const planes = into ?? new Uint8Array(n * 8)
  for (let i = 0; i < n; i++) {
    const a = addresses[i]!
    let lo = a % TWO_32
    let hi = Math.floor(a / TWO_32)
    for (let b = 0; b < 4; b++) {
      planes[at + b * n + i] = lo & 0xff
      lo >>>= 8
      planes[at + (b + 4) * n + i] = hi & 0xff
      hi >>>= 8
    }
  }
  return planes
}

/** The first n addresses as zigzagged delta varints (addresses below 2^53: deltas are exact). */
export function deltasOf(addresses: ArrayLike<number>, n: number): Uint8Array {
  const out: number[] = []
  let prev = 0
  for (let i = 0; i < n; i++) {
    const a = addresses[i]!
    const d = a - prev
    prev = a
    const m = Math.abs(d)
    if (m < TWO_52) {
      // Below 2^53 as a double: exact.
      let z = d < 0 ? 2 * m - 1 : 2 * m
      while (z >= 128) {
        out.push((z % 128) | 128)
        z = Math.floor(z / 128)
      }
      out.push(z)
    } else {
      let z = d < 0 ? 2n * BigInt(m) - 1n : 2n * BigInt(m)
      while (z >= 128n) {
        out.push(Number(z & 127n) | 128)
        z >>= 7n
      }
      out.push(Number(z))
    }
  }
  return Uint8Array.from(out)
}

/** Brotli's size of a sample at quality 1 (the core's trial has the same parameters). */
const trialBytes = (data: Uint8Array): number =>
  brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_LGWIN]: 16, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }).length

/** The form a residue of these addresses takes (v4). */
export function residueForm(addresses: ArrayLike<number>, n: number): number {
  if (n <= RESIDUE_UNTRIED) return RESIDUE_DELTAS
  const m = Math.min(n, RESIDUE_SAMPLE)
  return trialBytes(deltasOf(addresses, m)) <= trialBytes(planesOf(addresses, m)) ? RESIDUE_DELTAS : RESIDUE_PLANES
}

/** A v4 residue: its form byte, then the addresses in that form. */
export function residueV4(addresses: ArrayLike<number>, n: number): Uint8Array {
  if (residueForm(addresses, n) === RESIDUE_DELTAS) {
    const deltas = deltasOf(addresses, n)
    const out = new Uint8Array(deltas.length + 1)
    out[0] = RESIDUE_DELTAS
    out.set(deltas, 1)
    return out
  }
  const out = new Uint8Array(n * 8 + 1)
  out[0] = RESIDUE_PLANES
  return planesOf(addresses, n, out, 1)
}

/**
 * The addresses of a residue (v4's forms, or v1-v3's bare planes), at most `most`. Throws on
 * damage: an unknown form, planes that are not whole, a varint cut short or too long, an
 * address outside [0, 2^53).
 */
export function readResidue(residue: Uint8Array, format: number, most: number): Float64Array {
  if (residue.length === 0) return new Float64Array(0)
  let form = RESIDUE_PLANES
  let body = residue
  if (format >= 4) {
    form = residue[0]!
    body = residue.subarray(1)
    if (form !== RESIDUE_PLANES && form !== RESIDUE_DELTAS) throw new Error(`its irregular addresses are in an unknown form (${form})`)
  }
  if (form === RESIDUE_PLANES) {
    if (body.length % 8 !== 0) throw new Error('its irregular addresses are not whole')
    const n = body.length / 8
    if (n > most) throw new Error('it holds more irregular addresses than accesses')
    const out = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      let lo = 0
      let hi = 0
      for (let b = 3; b >= 0; b--) {
        lo = lo * 256 + body[b * n + i]!
        hi = hi * 256 + body[(b + 4) * n + i]!
      }
      out[i] = hi * TWO_32 + lo
    }
    return out
  }
  const out: number[] = []
  let prev = 0
  for (let at = 0; at < body.length; ) {
    if (out.length >= most) throw new Error('it holds more irregular addresses than accesses')
    let z = 0n
    let shift = 0n
    for (;;) {
      if (at >= body.length) throw new Error('its irregular addresses end inside a varint')
      const x = body[at++]!
      z |= BigInt(x & 127) << shift
      shift += 7n
      if ((x & 128) === 0) break
      if (shift >= 63n) throw new Error('an irregular address delta is too long')
    }
    const d = z & 1n ? -((z + 1n) >> 1n) : z >> 1n
    const a = prev + Number(d)
    if (!(a >= 0 && a <= Number.MAX_SAFE_INTEGER)) throw new Error(`address ${a} is not a valid address`)
    out.push(a)
    prev = a
  }
  return Float64Array.from(out)
}

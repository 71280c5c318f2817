/**
 * The second stage's brotli parameters per stream, chosen by the stream's size (and, for a
 * large residue, by whether its addresses repeat), as measured on the examples' streams
 * (docs/BENCHMARKS.md, "Codec v2: brotli parameters by stream"). Brotli streams describe
 * themselves (window in their header, the rest needs no parameter to decode), so these choices
 * change the stored bytes, never the format.
 */
import { constants, type BrotliOptions } from 'node:zlib'
import { RESIDUE_PLANES } from './residue'

/**
 * Quality 10-11 costs about 0.4 ms per call however small the input; up to 512 bytes quality 9
 * is as small (often smaller: a lighter header) in a tenth of the time. Above, 10: less than
 * half of 11's time (micro's 7 KB structure for 1.1 M events: 6 against 14 ms) for 0.4% more
 * there (-1.5% to +3.8% on its prefixes). But 10's time grows with how irregular the structure
 * is, and an irregular structure is large for its events: a whole-program trace's chunk (libc's
 * start-up, 89,742 events, 51 KB of structure) took 150 ms at 10 against 4 ms at 9, for 16.0
 * against 19.3 KB. So above 8 KiB, 10 only where the structure is at most a byte per 16 events
 * (a loop kernel's; micro's last chunk, 7 KB for 19,459 events, stays at 10: 6,218 against
 * 6,685 B at 9). The others take 8: on a C++ program's whole-program trace (std::map, regex,
 * 24 M events, 88 chunks with 150-250 KB of structure each) 9 took 7.4 s for 2,602,601 B and 8
 * 0.59 s for 2,607,629 B (+0.2%); on the examples' start-up chunks 8 is 3.5x faster than 9 and a
 * few bytes smaller.
 */
export const structureQuality = (bytes: number, events: number): number => (bytes <= 512 ? 9 : bytes <= 8192 || bytes <= events / 16 ? 10 : 8)

/**
 * Up to 256 KiB quality 6: 7-9 with a window above 2^16 set up an 8-32 MiB match table per
 * call (10 ms on a 250 KB residue, 5 ms on 8 KB), and 6 is within 0.3% of 9's size. Larger
 * residues: 5, or 4 where addresses do not repeat (random indexing), where 5's deeper match
 * search finds nothing and 4 is as small in three quarters of the time.
 */
export function residueQuality(planes: Uint8Array): number {
  if (planes.length <= 1 << 18) return 6
  return repeatShare(planes) < 1 / 8 ? 4 : 5
}

/**
 * A v4 residue (residue.ts: a form byte, then planes or delta varints): its planes as above;
 * its deltas at 6 up to 256 KiB, else 5 (4 is 2x faster there but 2% larger).
 */
export function residueQualityV4(residue: Uint8Array): number {
  if (residue[0] === RESIDUE_PLANES) return residueQuality(residue.subarray(1))
  return residue.length <= 1 << 18 ? 6 : 5
}

/** Streams that fit 2^16 lose no match in that window (brotli's cheapest to set up, and a one-bit header field); larger ones keep 2^22. */
export const lgwin = (bytes: number): number => (bytes <= (1 << 16) - 16 ? 16 : 22)

/** One stream's brotli parameters: what zlib is given (brotliParams) and what the native core's second stage takes. */
export interface BrotliSetting {
  quality: number
  lgwin: number
  /** Input block bits, 0 for brotli's choice by quality. */
  lgblock: number
}

export function brotliSetting(data: Uint8Array, quality: number): BrotliSetting {
  // Quality 4 on a large (random) residue: 1 MiB input blocks instead of 64 KiB, 12% faster, within 5 bytes.
  return { quality, lgwin: lgwin(data.length), lgblock: quality === 4 && data.length > 1 << 18 ? 20 : 0 }
}

/** Node's zlib options for a setting (with the stream's size as its hint, as the core sets it). */
export function brotliParams(data: Uint8Array, quality: number): BrotliOptions {
  const s = brotliSetting(data, quality)
  const params: Record<number, number> = {
    [constants.BROTLI_PARAM_QUALITY]: s.quality,
    [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    [constants.BROTLI_PARAM_LGWIN]: s.lgwin
  }
  if (s.lgblock) params[constants.BROTLI_PARAM_LGBLOCK] = s.lgblock
  return { params }
}

/**
 * The share of sampled places in a residue (eight byte planes of n addresses, prsd-codec.ts)
 * where the low 16 bits of four consecutive addresses repeat an earlier sampled place's:
 * about 0 for random indexing, 0.85-0.9 for reuse's repeated gathers. Places are sampled by
 * content (1 in 16 values), so a repeat is seen at any distance, and the table holds the last
 * place per hash (4096 slots: one pass, no allocation beyond 16 KiB).
 */
export function repeatShare(planes: Uint8Array): number {
  const n = planes.length >>> 3
  const table = new Int32Array(1 << 12).fill(-1)
  let anchors = 0
  let hits = 0
  for (let i = 0; i + 4 <= n; i++) {
    const v = planes[i]! | (planes[n + i]! << 8)
    if (Math.imul(v, 0x9e3779b1) >>> 28 !== 0) continue
    anchors++
    const w = planes[i + 1]! | (planes[n + i + 1]! << 8) | (planes[i + 2]! << 16) | (planes[n + i + 2]! << 24)
    const slot = Math.imul(w ^ v, 0x85ebca77) >>> 20
    const j = table[slot]!
    if (j >= 0 && (planes[j]! | (planes[n + j]! << 8)) === v && (planes[j + 1]! | (planes[n + j + 1]! << 8) | (planes[j + 2]! << 16) | (planes[n + j + 2]! << 24)) === w && planes[j + 3] === planes[i + 3] && planes[n + j + 3] === planes[n + i + 3])
      hits++
    table[slot] = i
  }
  return anchors > 0 ? hits / anchors : 1
}

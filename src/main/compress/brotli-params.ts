/**
 * The second stage's brotli parameters per stream, chosen by the stream's size (and a
 * structure's by its events), as measured on the examples' and the real-program corpus's
 * streams (bench/corpus.mjs sessions). Brotli streams describe
 * themselves (window in their header, the rest needs no parameter to decode), so these choices
 * change the stored bytes, never the format.
 */
import { constants, type BrotliOptions } from 'node:zlib'

/**
 * Quality 10-11 costs about 0.4 ms per call however small the input; up to 512 bytes quality 9
 * is as small (often smaller: a lighter header) in a tenth of the time. Above, 10 where the
 * structure is small for its events (up to 8 KiB, or at most a byte per 16 events: a loop
 * kernel's), whose time is then a few ms a chunk. A larger structure is an irregular program's
 * (a real program's whole-program trace: 50-250 KB a chunk), and there the second stage is a
 * trace's largest cost after the first stage: on the corpus's lz4, bzip2 and sort traces
 * (bench/second-stage.mjs, docs/BENCHMARKS.md) quality 4 is 2.5-3.0x faster than 8 for 1.9-3.4%
 * more bytes (9 and 10 cost seconds there).
 */
export const structureQuality = (bytes: number, events: number): number => (bytes <= 512 ? 9 : bytes <= 8192 || bytes <= events / 16 ? 10 : 4)

/** Residues up to this size take quality 6 (a few ms a chunk); larger ones LARGE_RESIDUE_QUALITY. */
const SMALL_RESIDUE = 1 << 18

/**
 * A large residue (a real program's irregular addresses: 0.5-1.2 MB a chunk on the corpus) is
 * the second stage's largest input: at quality 5 brotli took a tenth of a whole-program trace's
 * CPU. Quality 4 is 1.85-1.9x faster on the corpus's lz4 and bzip2 residues, from 2.7% smaller
 * to 1.9% larger (bench/second-stage.mjs), and decodes 5-12% faster than 2 (which would save
 * another 45% of the encoding for 3-5% more bytes, but every what-if decodes the residue). Up to 256 KiB quality 6:
 * within 0.3% of 9's size, and 7-9 with a window above 2^16 set up an 8-32 MiB match table per
 * call.
 */
const LARGE_RESIDUE_QUALITY = 4

export const residueQuality = (planes: Uint8Array): number => (planes.length <= SMALL_RESIDUE ? 6 : LARGE_RESIDUE_QUALITY)

/** A v4 residue (residue.ts: a form byte, then planes or delta varints): the same rule for both forms. */
export const residueQualityV4 = (residue: Uint8Array): number => residueQuality(residue)

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
  // Quality 4 on a large stream: 1 MiB input blocks instead of 64 KiB, a few % faster, within 0.5%.
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

/* A chunk's irregular addresses before the second stage (the residue): up to v3 eight byte
 * planes; from v4 a form byte, then the planes (form 0) or zigzagged delta varints (form 1),
 * the form tried per chunk on a sample through brotli at quality 1 (residues of RESIDUE_UNTRIED
 * addresses or fewer take deltas untried). The same bytes as
 * src/main/compress/residue.ts (the reference; its header says why). */
#ifndef STRIDE_CODEC_RESIDUE_H
#define STRIDE_CODEC_RESIDUE_H
#include "bytes.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { RESIDUE_PLANES = 0, RESIDUE_DELTAS = 1, RESIDUE_SAMPLE = 4096, RESIDUE_UNTRIED = 512 };

/* The n addresses' residue into r (emptied first): v4's form byte and form when `v4`, else bare
 * planes. NULL, or the problem (out of memory). */
const char *residue_write(ByteBuf *r, const uint64_t *addresses, size_t n, bool v4);

/* Form 1's addresses (after the form byte) into a kept array of *n of them, at most `most`:
 * NULL, or what is wrong (a varint cut short or too long, an address not below 2^53, more than
 * `most`, out of memory). The caller returns *out with scratch_free. */
const char *residue_read_deltas(const uint8_t *in, size_t length, size_t most, uint64_t **out, size_t *n);
#endif

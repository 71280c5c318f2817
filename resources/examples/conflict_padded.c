/* METRIC section 10.3.2: the same kernel with each array padded by 1 KiB,
 * which moves B and C to other sets and removes the conflict misses. */
#define PAD 128
#include "conflict.c"

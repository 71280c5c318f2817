/* The point code of a context access, shared by every loop that reads a batch (the simulator,
 * the advisor's shadow, the record scan, the touch remap). */
#ifndef STRIDE_SIM_CONTEXT_H
#define STRIDE_SIM_CONTEXT_H

/* A batch's point SIM_CONTEXT | flags is a context access (a function-scoped trace's first
 * simulation, warmed by the rest of the program): an access of no point, which changes the
 * cache and TLB state as a demand access does and counts nothing (no point's counts, no
 * timeline interval; it marks no bytes used and trains no stride prefetcher). Codes from
 * SIM_CONTEXT up are context. Its flags say what the folded accesses to its line did (the
 * Valgrind tool's ST_CTX_*): */
#define SIM_CONTEXT 0xfffffff0u
enum { CTX_READ = 1, CTX_WRITE_FIRST = 2, CTX_WRITE_AFTER = 4, CTX_MODIFY_AFTER = 8 };

#endif

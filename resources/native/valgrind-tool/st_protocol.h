/* Stride's Valgrind tool: the record format (version 3) and the client requests its preload
   makes. Shared by st_main.c (the tool) and st_preload.c (the allocator wrappers); the
   TypeScript reader is src/main/tracing/valgrind/tool-stream.ts. See README.md. */
#ifndef ST_PROTOCOL_H
#define ST_PROTOCOL_H

#define ST_FORMAT_VERSION 3
#define ST_MAGIC 0x3252545345444952ULL /* "RIDESTR2" little-endian: a Stride tool stream */

/* Transport: through --out-fd (a pipe), or, with --ring-fd, in a ring of --ring-blocks blocks
   of ST_RING_BLOCK_RECORDS records shared with Stride: the tool fills the blocks in turn and
   writes a u32 token (the block's record count) to --out-fd for each, in order; Stride gives
   each block back with one byte on --ack-fd once it has read it. The byte stream read block
   after block is the same as the pipe's (a control record's slots may go on in the next). */
#define ST_RING_BLOCK_RECORDS (32 * 1024) /* 512 KiB */
/* The token a tool that could not map the ring sends first: the rest of --out-fd is the
   record stream itself, as without --ring-fd. */
#define ST_RING_NONE 0xFFFFFFFFu

/* Every record is 16 bytes, little-endian:
     u64 a; u32 tag; u16 aux; u16 tid;
   An access has tag = its access point id (< ST_CONTROL) and a = the address, aux = size.
   A control record has tag = ST_CONTROL | kind << 8 | extra, and is followed by `extra`
   16-byte slots (two u64 each). */
#define ST_CONTROL 0xFFFF0000u

enum {
   ST_HEADER = 1,  /* a = ST_MAGIC, aux = version; slot {pid, 0} */
   ST_POINT = 2,   /* defines the next access point id: a = pc, aux = kind (0 load, 1 store, 2 modify) */
   ST_ENTER = 3,   /* a function of the program starts: a = its entry, slot {sp at entry, 0} */
   ST_LEAVE = 4,   /* a function of the program returned: a = sp after the return */
   ST_ALLOC = 5,   /* a = block, aux = op | frames << 8; slots {size, old block}, then frames, two a slot */
   ST_FREE = 6,    /* a = block */
   ST_DETACH = 7,  /* recording stopped, the run goes on uninstrumented: a = accesses, aux = why */
   ST_EXIT = 8,    /* the program is exiting: a = exit code */
   ST_MAPS = 9,    /* the process's /proc/self/maps text as objects appear: a = its length in
                      bytes, followed by ceil(a / 16) raw slots (not counted in `extra`) */
   ST_THREAD = 10, /* a thread starts: a = its Valgrind thread id (ids are reused), aux = parent's */
   ST_EXEC = 11,   /* the program calls execve (or execveat): every record before is out. A later
                      record means the call failed and the program went on */
   /* Kinds 16..31, no slots: an access of the code outside the chosen functions (--context=yes),
      a = address, aux = size, kind = ST_CONTEXT | ST_CTX_* flags. It has no access point; it
      only warms the first simulation's cache. Accesses to the line of the context record just
      before (nothing between them, same thread) are folded into it (flags OR-ed). */
   ST_CONTEXT = 16
};

/* A context record's flags: what its accesses did to the line, in the order that decides the
   cache state (after the first read the line is resident; only whether a write came later
   matters, and whether that write was a modify's, which Cachegrind counts as a read). */
enum { ST_CTX_READ = 1, ST_CTX_WRITE_FIRST = 2, ST_CTX_WRITE_AFTER = 4, ST_CTX_MODIFY_AFTER = 8 };

enum { ST_DETACH_MAX_EVENTS = 1, ST_DETACH_SECONDS = 2 };

/* Allocation operations (ST_ALLOC's op). */
enum {
   ST_OP_MALLOC = 0, ST_OP_CALLOC = 1, ST_OP_REALLOC = 2, ST_OP_MEMALIGN = 3,
   ST_OP_NEW = 4, ST_OP_NEW_ARRAY = 5
};

/* Client requests, VG_USERREQ_TOOL_BASE('S','T') + n. */
#define ST_REQ(n) (((unsigned long)'S' << 24 | (unsigned long)'T' << 16) + (n))
#define ST_REQ_ENTER ST_REQ(0)  /* an allocator wrapper starts (nested calls are not reported) */
#define ST_REQ_ALLOC ST_REQ(1)  /* op, block, size, old block */
#define ST_REQ_FREE ST_REQ(2)   /* block */

#endif

/* Stride's Valgrind tool (--tool=stride): records the loads and stores of the chosen code
   inside Valgrind's JIT and writes them as 16-byte binary records (st_protocol.h, README.md).

   - Events are formed as Lackey forms them (lackey/lk_main.c): one per load, store, dirty
     helper memory effect, CAS and LL/SC, in program order; a load followed by a store of the
     same address expression and size in one instruction is one "modify". Lackey is the
     oracle the integration test compares against.
   - Access points are numbered here, at translation time, per (instruction, kind): the hot
     path writes {address, point, size, thread} and nothing else, and Stride needs no
     per-access lookup.
   - Partial tracing as METRIC does it: with --fn, only the chosen functions' instructions get
     instrumentation (decided per instruction from the symbol table, so PIE and shared objects
     need no load bases); --follow-calls also records what they call, through a guard that
     reads one flag, so code outside costs a load and a compare.
   - Whole-program context (--context=yes, with --fn): the code outside the chosen functions
     is instrumented too, and its accesses go out as compact context records (no access point,
     st_protocol.h): the first simulation's cache is warmed by the rest of the program. An
     access to the same line as the context record just before it is folded into that record.
   - --max-events / --seconds detach: the translations are discarded and the rest of the run is
     retranslated without instrumentation (the Null tool's speed).
   - Allocation events come from the preload's wrappers (st_preload.c) as client requests and
     carry Valgrind's own stack trace; the program's allocator is not replaced. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_options.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_transtab.h"
#include "pub_tool_clreq.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "st_protocol.h"

/* Tools may discard translations only where the core allows it; the scheduler's
   start-of-timeslice hook is such a place (no translation is running), so detach sets it. */
extern Bool VG_(ok_to_discard_translations);
/* Moves an fd into Valgrind's reserved range, close-on-exec (what the core does for its log):
   the program cannot see, close or inherit the record stream, and its own fds are numbered as
   they would be under Cachegrind. */
extern Int VG_(safe_fd)(Int oldfd);
extern Int VG_(kill)(Int pid, Int signo);

typedef struct { ULong a; UInt tag; UShort aux; UShort tid; } Record;

/* ---------------------------------------------------------------- options */

#define MAX_FNS 256
static const HChar* fn_names[MAX_FNS];
static Int n_fns = 0;
static Long out_fd = -1;
/* --log-fd's descriptor as Stride passed it (--close-log-fd). Valgrind's core copies its log
   fd into its private range (F_DUPFD above VG_(fd_hard_limit)) but leaves the original open,
   and the program inherits it: it could write lines Stride takes for Valgrind's. The tool
   closes it once the core has its copy. */
static Long close_log_fd = -1;
static Bool follow_calls = False;
static Bool frames = True;
static Long max_events = 0;   /* 0: no limit */
static Long max_ms = 0;
static Bool stop_at_limit = False;
static const HChar* exe_path = NULL;
/* --context=yes: the code outside the chosen functions emits context records; folded per line
   of --context-line bytes (the smallest line of the simulated caches: a fold is then exact for
   every level, since a line of it lies inside one line of each larger one). */
static Bool context = False;
static Long context_line = 64;
static UInt ctx_shift = 6;

/* ---------------------------------------------------------------- output */

#define BLOCK_RECORDS (96 * 1024) /* 1.5 MiB: few write calls, and the pipe stays full */
static Record own_block[BLOCK_RECORDS];
/* The block being filled: own_block for a pipe; in ring mode, the ring's current block. */
static Record* block = own_block;
static UInt block_records = BLOCK_RECORDS;
static UInt used = 0;
static Bool reader_gone = False;

/* Ring mode (--ring-fd, st_protocol.h): the records go into blocks of a memory ring shared
   with Stride, and out_fd carries one token per full block. A pipe copied every record into
   the kernel and out again: a tenth of a second for a 15 M-access trace. */
static Long ring_fd = -1, ack_fd = -1, ring_blocks = 0;
static Record* ring = NULL;
static ULong published = 0; /* blocks handed to Stride */
static ULong acked = 0;     /* blocks Stride gave back */

/* This tool's view of an aspacemgr function the core exports but pub_tool does not declare
   (Valgrind's gdbserver maps its shared memory with it, as other out-of-tree tools do). */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd, Off64T offset);

static void write_all(const HChar* p, SizeT left) {
   while (left > 0 && !reader_gone) {
      Int n = VG_(write)((Int)out_fd, p, left);
      if (n <= 0) { reader_gone = True; break; } /* Stride went away: the program still runs */
      p += n;
      left -= n;
   }
}

static void flush(void) {
   if (!ring) {
      SizeT left = used * sizeof(Record);
      used = 0;
      write_all((const HChar*)block, left);
      return;
   }
   if (used == 0 || reader_gone) {
      used = 0;
      return;
   }
   UInt token = used;
   used = 0;
   write_all((const HChar*)&token, sizeof token);
   if (reader_gone) return;
   published++;
   /* The next block is free once Stride gave back the one it held there. */
   while (published - acked >= (ULong)ring_blocks && !reader_gone) {
      HChar acks[64];
      Int n = VG_(read)((Int)ack_fd, acks, sizeof acks);
      if (n <= 0) reader_gone = True;
      else acked += (ULong)n;
   }
   block = ring + (published % (ULong)ring_blocks) * ST_RING_BLOCK_RECORDS;
}

/* Maps the ring (with --ring-fd); where it cannot be, says why, and the records go through out_fd. */
static void open_ring(void) {
   if (ring_fd < 0) return;
   if (ack_fd < 0 || ring_blocks < 2 || ring_blocks > 64) {
      VG_(umsg)("stride: --ring-fd needs --ack-fd and --ring-blocks=2..64\n");
      VG_(exit)(2);
   }
   Int fd = VG_(safe_fd)((Int)ring_fd);
   ack_fd = VG_(safe_fd)((Int)ack_fd);
   if (fd < 0 || ack_fd < 0) {
      VG_(umsg)("stride: --ring-fd and --ack-fd must be open file descriptors\n");
      VG_(exit)(2);
   }
   SizeT bytes = (SizeT)ring_blocks * ST_RING_BLOCK_RECORDS * sizeof(Record);
   SysRes res = VG_(am_shared_mmap_file_float_valgrind)(bytes, VKI_PROT_READ | VKI_PROT_WRITE, fd, 0);
   VG_(close)(fd);
   if (sr_isError(res)) {
      /* The records go through --out-fd after all, and Stride is told so in the token stream. */
      VG_(umsg)("stride: cannot map the record ring (error %lu); the records go through the pipe\n", sr_Err(res));
      VG_(close)((Int)ack_fd);
      ack_fd = -1;
      UInt token = ST_RING_NONE;
      write_all((const HChar*)&token, sizeof token);
      return;
   }
   ring = (Record*)(Addr)sr_Res(res);
   block = ring;
   block_records = ST_RING_BLOCK_RECORDS;
}

static inline Record* next_record(void) {
   if (used == block_records) flush();
   return &block[used++];
}

static void control(UInt kind, UInt extra, ULong a, UShort aux, ThreadId tid) {
   Record* r = next_record();
   r->a = a;
   r->tag = ST_CONTROL | kind << 8 | extra;
   r->aux = aux;
   r->tid = (UShort)tid;
}

static void slot(ULong x, ULong y) {
   Record* r = next_record();
   r->a = x;
   *(ULong*)&r->tag = y; /* the slot's second word spans tag, aux and tid */
}

/* ---------------------------------------------------------------- run state */

static VgHashTable* points; /* access point ids by (pc, kind); built once the header is out */

static ThreadId cur_tid = 1;
static ULong accesses = 0;
static UInt start_ms = 0;
static Bool detached = False;
static Bool discard_pending = False;
/* Follow mode: inside a chosen function on the running thread (read by the IR guard). */
static UInt active = 0;
/* Per Valgrind thread id (VG_N_THREADS is a run-time setting). */
#define FOLLOW_MAX 256
static UInt* follow_depth;
static Addr (*follow_sp)[FOLLOW_MAX];
static UInt* alloc_depth;

static void detach(UShort why) {
   if (detached) return;
   detached = True;
   control(ST_DETACH, 0, accesses, why, cur_tid);
   flush();
   /* Stopped here, not by Stride once it reads the detach record: the pipe holds a megabyte,
      and the program would run on that far (or to its end) before anyone read it. */
   if (stop_at_limit) VG_(kill)(VG_(getpid)(), VKI_SIGKILL);
   discard_pending = True;
}

static VG_REGPARM(2) void on_access(UWord pointSize, Addr addr) {
   if (detached) return;
   Record* r = next_record();
   r->a = addr;
   r->tag = (UInt)pointSize;
   r->aux = (UShort)(pointSize >> 32);
   r->tid = (UShort)cur_tid;
   if (++accesses == (ULong)max_events && max_events > 0) detach(ST_DETACH_MAX_EVENTS);
   else if (max_ms > 0 && (accesses & 0xffff) == 0 && VG_(read_millisecond_timer)() - start_ms >= (UInt)max_ms)
      detach(ST_DETACH_SECONDS);
}

/* The context record last written, while it is still the block's last record (anything written
   after it, a flush included, ends the fold), and its line. */
static Record* ctx_last = NULL;
static ULong ctx_line_no = 0;

/* Kind 0 load, 1 store, 2 modify into a context record's flags (st_protocol.h ST_CTX_*). */
static inline UInt ctx_flags(UInt flags, UInt kind) {
   if (kind == 0) return flags | ST_CTX_READ;
   if (kind == 1) return flags | ((flags & ST_CTX_READ) ? ST_CTX_WRITE_AFTER : ST_CTX_WRITE_FIRST);
   return flags | ST_CTX_READ | ST_CTX_MODIFY_AFTER;
}

/* An access outside the chosen functions: sizeKind = size << 2 | kind. Not counted towards
   --max-events (those count the recorded accesses). */
static VG_REGPARM(2) void on_context(UWord sizeKind, Addr addr) {
   if (detached) return;
   UInt kind = (UInt)(sizeKind & 3);
   UWord size = sizeKind >> 2;
   ULong line = (ULong)addr >> ctx_shift;
   Bool one = (((ULong)addr + size - 1) >> ctx_shift) == line;
   if (one && ctx_last != NULL && used > 0 && ctx_last == &block[used - 1] && ctx_line_no == line && ctx_last->tid == (UShort)cur_tid) {
      UInt flags = ctx_flags((ctx_last->tag >> 8) & 15, kind);
      ctx_last->tag = ST_CONTROL | (ST_CONTEXT | flags) << 8;
      return;
   }
   Record* r = next_record();
   r->a = addr;
   r->tag = ST_CONTROL | (ST_CONTEXT | ctx_flags(0, kind)) << 8;
   r->aux = (UShort)(size > 0xffff ? 0xffff : size);
   r->tid = (UShort)cur_tid;
   /* An access over two lines is kept whole and folds nothing into it. */
   ctx_last = one ? r : NULL;
   ctx_line_no = line;
}

/* Follow mode with context: outside the chosen functions an access is recorded while one of
   them is on the stack (`active`), else it is context. arg = point | size << 32; kindSize for
   the context record. */
static VG_REGPARM(3) void on_either(UWord pointSize, Addr addr, UWord kindSize) {
   if (active) on_access(pointSize, addr);
   else on_context(kindSize, addr);
}

static VG_REGPARM(2) void on_enter(Addr entry, Addr sp) {
   if (detached) return;
   if (frames) {
      control(ST_ENTER, 1, entry, 0, cur_tid);
      slot(sp, 0);
   }
}

static VG_REGPARM(1) void on_chosen_enter(Addr sp) {
   UInt* d = &follow_depth[cur_tid];
   if (*d < FOLLOW_MAX) follow_sp[cur_tid][*d] = sp;
   (*d)++;
   active = 1;
}

static VG_REGPARM(2) void on_leave(Addr sp, UWord chosen) {
   if (detached) return;
   if (frames) control(ST_LEAVE, 0, sp, 0, cur_tid);
   if (chosen) {
      /* Pop every chosen frame the stack has returned past (sp after a ret is above the
         return slot); a longjmp over several is popped by the next return. */
      UInt* d = &follow_depth[cur_tid];
      while (*d > 0 && (*d > FOLLOW_MAX || follow_sp[cur_tid][*d - 1] < sp)) (*d)--;
      active = *d > 0;
   }
}

/* A fork's child runs on unrecorded: Stride records one process, and the child must not
   write into its parent's stream (its copy of the ring is the same memory). It closes its
   copies of the stream's fds, so that the stream ends when the parent exits, however long
   the child lives, and its code is retranslated without instrumentation. */
static void on_fork_child(ThreadId tid) {
   reader_gone = True;
   ring = NULL;
   block = own_block;
   block_records = BLOCK_RECORDS;
   used = 0;
   if (out_fd >= 0) VG_(close)((Int)out_fd);
   if (ack_fd >= 0) VG_(close)((Int)ack_fd);
   out_fd = ack_fd = -1;
   if (!detached) {
      detached = True;
      discard_pending = True;
   }
}

/* Thread ids are reused after a thread exits: creations are what count threads. */
static void on_thread_create(ThreadId parent, ThreadId child) {
   /* The first thread exists before the header is written (points is built with it). */
   if (detached || points == NULL || parent == VG_INVALID_THREADID) return;
   control(ST_THREAD, 0, child, (UShort)parent, parent);
}

static void on_thread_start(ThreadId tid, ULong blocks_done) {
   cur_tid = tid;
   active = follow_depth[tid] > 0;
   if (max_ms > 0 && !detached && VG_(read_millisecond_timer)() - start_ms >= (UInt)max_ms) detach(ST_DETACH_SECONDS);
   if (discard_pending) {
      discard_pending = False;
      VG_(ok_to_discard_translations) = True;
      VG_(discard_translations_safely)((Addr)0x1000, (SizeT)0x7ffffffff000ULL, "stride-detach");
      VG_(ok_to_discard_translations) = False;
   }
}

/* ---------------------------------------------------------------- objects */

/* Stride learns where each object is loaded from the maps text itself: by the time it reads
   a block of records the process may have ended, and /proc/PID would be gone. Sent whenever
   translation meets an object it had not met (the program, each library, each dlopen). */
#define MAX_OBJECTS 4096
static const DebugInfo* seen_objects[MAX_OBJECTS];
static UInt n_seen_objects = 0;
static HChar* maps_text = NULL;
static SizeT maps_cap = 0;

static void emit_maps(void) {
   SysRes r = VG_(open)("/proc/self/maps", VKI_O_RDONLY, 0);
   if (sr_isError(r)) return;
   Int fd = (Int)sr_Res(r);
   SizeT len = 0;
   for (;;) {
      if (len + 65536 > maps_cap) {
         maps_cap = maps_cap ? maps_cap * 2 : 262144;
         maps_text = VG_(realloc)("stride.maps", maps_text, maps_cap);
      }
      Int n = VG_(read)(fd, maps_text + len, 65536);
      if (n <= 0) break;
      len += n;
   }
   VG_(close)(fd);
   control(ST_MAPS, 0, len, 0, cur_tid);
   for (SizeT at = 0; at < len; at += sizeof(Record)) {
      Record* rec = next_record();
      VG_(memset)(rec, 0, sizeof(Record));
      VG_(memcpy)(rec, maps_text + at, len - at < sizeof(Record) ? len - at : sizeof(Record));
   }
}

static void note_object(const DebugInfo* di) {
   for (UInt i = 0; i < n_seen_objects; i++)
      if (seen_objects[i] == di) return;
   if (n_seen_objects < MAX_OBJECTS) seen_objects[n_seen_objects++] = di;
   emit_maps();
}

/* ---------------------------------------------------------------- access points */

typedef struct { VgHashNode node; UInt id; } PointNode; /* key = pc * 4 + kind */
static UInt n_points = 0;

static UInt point_id(Addr pc, UInt kind) {
   UWord key = (UWord)pc * 4 + kind;
   PointNode* p = VG_(HT_lookup)(points, key);
   if (p) return p->id;
   p = VG_(malloc)("stride.point", sizeof(PointNode));
   p->node.key = key;
   p->id = n_points++;
   VG_(HT_add_node)(points, p);
   /* Defined in the stream before any access can use it: translation precedes execution. */
   control(ST_POINT, 0, pc, (UShort)kind, cur_tid);
   return p->id;
}

/* ---------------------------------------------------------------- which code */

static const HChar* base_name(const HChar* path) {
   const HChar* s = VG_(strrchr)(path, '/');
   return s ? s + 1 : path;
}

typedef struct { const DebugInfo* di; Bool main; Bool ours; } ObjectKind;
static ObjectKind last_object;

static ObjectKind object_of(DiEpoch ep, Addr pc) {
   const DebugInfo* di = VG_(find_DebugInfo)(ep, pc);
   if (di == last_object.di && di != NULL) return last_object;
   ObjectKind k = { di, False, False };
   if (di) {
      note_object(di);
      const HChar* file = VG_(DebugInfo_get_filename)(di);
      const HChar* want = exe_path ? exe_path : VG_(args_the_exename);
      k.main = file && want && (exe_path ? VG_(strcmp)(file, want) == 0 : VG_(strcmp)(base_name(file), base_name(want)) == 0);
      /* Stride's preload is instrumentation, not the program. Valgrind's own (vgpreload_core)
         runs as the program's code under every tool, Cachegrind and Lackey count it: so do we. */
      k.ours = file && VG_(strncmp)(base_name(file), "vgpreload_stride", 16) == 0;
   }
   last_object = k;
   return k;
}

/* A name is the program's symbol (raw: the tool runs with --demangle=no), or OBJECT:symbol
   for a shared object, OBJECT being its file name. */
static Bool chosen(DiEpoch ep, Addr pc, ObjectKind obj) {
   if (n_fns == 0) return False;
   const HChar* name;
   if (!VG_(get_fnname)(ep, pc, &name)) return False;
   for (Int i = 0; i < n_fns; i++) {
      const HChar* want = fn_names[i];
      const HChar* colon = VG_(strchr)(want, ':');
      if (!colon) {
         if (obj.main && VG_(strcmp)(name, want) == 0) return True;
      } else if (VG_(strcmp)(name, colon + 1) == 0 && obj.di) {
         const HChar* file = base_name(VG_(DebugInfo_get_filename)(obj.di));
         if (VG_(strncmp)(file, want, colon - want) == 0 && file[colon - want] == '\0') return True;
      }
   }
   return False;
}

/* ---------------------------------------------------------------- instrumentation */

typedef struct { Bool live; IRExpr* addr; Int size; UInt kind; IRExpr* guard; } Pending;

/* What an instruction's accesses become: not instrumented, recorded, recorded only while
   `active` (follow mode), context records, or either, by `active` (follow mode with context). */
typedef enum { EV_NONE, EV_RECORD, EV_GUARDED, EV_CONTEXT, EV_EITHER } EventMode;

typedef struct {
   IRSB* out;
   Addr pc;
   EventMode mode;
   Pending pending;
} Builder;

static IRExpr* active_guard(IRSB* out, IRExpr* guard) {
   IRTemp flag = newIRTemp(out->tyenv, Ity_I32);
   addStmtToIRSB(out, IRStmt_WrTmp(flag, IRExpr_Load(Iend_LE, Ity_I32, mkIRExpr_HWord((HWord)&active))));
   IRExpr* on = IRExpr_RdTmp(flag);
   if (guard) {
      IRTemp g = newIRTemp(out->tyenv, Ity_I32);
      addStmtToIRSB(out, IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto32, guard)));
      IRTemp both = newIRTemp(out->tyenv, Ity_I32);
      addStmtToIRSB(out, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And32, on, IRExpr_RdTmp(g))));
      on = IRExpr_RdTmp(both);
   }
   IRTemp t = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(t, IRExpr_Binop(Iop_CmpNE32, on, IRExpr_Const(IRConst_U32(0)))));
   return IRExpr_RdTmp(t);
}

static void emit(Builder* b) {
   Pending* p = &b->pending;
   if (!p->live) return;
   p->live = False;
   UWord ctx = (UWord)p->size << 2 | p->kind;
   IRDirty* di;
   if (b->mode == EV_CONTEXT) {
      di = unsafeIRDirty_0_N(2, "stride_context", VG_(fnptr_to_fnentry)(on_context), mkIRExprVec_2(mkIRExpr_HWord(ctx), p->addr));
   } else {
      UWord arg = (UWord)point_id(b->pc, p->kind) | (UWord)p->size << 32;
      if (b->mode == EV_EITHER)
         di = unsafeIRDirty_0_N(3, "stride_either", VG_(fnptr_to_fnentry)(on_either), mkIRExprVec_3(mkIRExpr_HWord(arg), p->addr, mkIRExpr_HWord(ctx)));
      else
         di = unsafeIRDirty_0_N(2, "stride_access", VG_(fnptr_to_fnentry)(on_access), mkIRExprVec_2(mkIRExpr_HWord(arg), p->addr));
   }
   IRExpr* guard = b->mode == EV_GUARDED ? active_guard(b->out, p->guard) : p->guard;
   if (guard) di->guard = guard;
   addStmtToIRSB(b->out, IRStmt_Dirty(di));
}

static void add_read(Builder* b, IRExpr* addr, Int size, IRExpr* guard) {
   emit(b);
   b->pending = (Pending){ True, addr, size, 0, guard };
}

/* A write right after a read of the same address expression and size, unguarded, in the
   same instruction is one modify (Lackey's addEvent_Dw). */
static void add_write(Builder* b, IRExpr* addr, Int size, IRExpr* guard) {
   Pending* p = &b->pending;
   if (!guard && p->live && p->kind == 0 && p->size == size && !p->guard && eqIRAtom(p->addr, addr)) {
      p->kind = 2;
      return;
   }
   emit(b);
   b->pending = (Pending){ True, addr, size, 1, guard };
}

static void call_enter(IRSB* out, const VexGuestLayout* layout, Addr pc, Bool is_chosen) {
   IRExpr* sp = IRExpr_Get(layout->offset_SP, Ity_I64);
   IRTemp t = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(t, sp));
   IRDirty* di = unsafeIRDirty_0_N(2, "stride_enter", VG_(fnptr_to_fnentry)(on_enter), mkIRExprVec_2(mkIRExpr_HWord(pc), IRExpr_RdTmp(t)));
   addStmtToIRSB(out, IRStmt_Dirty(di));
   if (is_chosen) {
      IRDirty* c = unsafeIRDirty_0_N(1, "stride_chosen_enter", VG_(fnptr_to_fnentry)(on_chosen_enter), mkIRExprVec_1(IRExpr_RdTmp(t)));
      addStmtToIRSB(out, IRStmt_Dirty(c));
   }
}

static IRSB* st_instrument(VgCallbackClosure* closure, IRSB* in, const VexGuestLayout* layout,
                           const VexGuestExtents* vge, const VexArchInfo* archinfo,
                           IRType gWordTy, IRType hWordTy) {
   if (detached) return in;
   DiEpoch ep = VG_(current_DiEpoch)();
   IRSB* out = deepCopyIRSBExceptStmts(in);
   Builder b = { out, 0, EV_NONE, { False, NULL, 0, 0, NULL } };
   Int i = 0;
   while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark) addStmtToIRSB(out, in->stmts[i++]);
   Bool record = False, last_main = False, last_chosen = False;
   for (; i < in->stmts_used; i++) {
      IRStmt* st = in->stmts[i];
      if (!st || st->tag == Ist_NoOp) continue;
      switch (st->tag) {
      case Ist_IMark: {
         emit(&b);
         b.pc = st->Ist.IMark.addr;
         ObjectKind obj = object_of(ep, b.pc);
         Bool is_chosen = chosen(ep, b.pc, obj);
         last_main = obj.main;
         last_chosen = is_chosen;
         if (obj.ours) b.mode = EV_NONE;
         else if (n_fns == 0 || is_chosen) b.mode = EV_RECORD;
         else if (follow_calls) b.mode = context ? EV_EITHER : EV_GUARDED;
         else b.mode = context ? EV_CONTEXT : EV_NONE;
         record = b.mode != EV_NONE;
         addStmtToIRSB(out, st);
         Bool want_frame = frames && obj.main;
         Bool want_follow = follow_calls && is_chosen;
         const HChar* name;
         if ((want_frame || want_follow) && VG_(get_fnname_if_entry)(ep, b.pc, &name))
            call_enter(out, layout, b.pc, want_follow);
         continue;
      }
      case Ist_WrTmp:
         if (record && st->Ist.WrTmp.data->tag == Iex_Load) {
            IRExpr* e = st->Ist.WrTmp.data;
            add_read(&b, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), NULL);
         }
         break;
      case Ist_Store:
         if (record) add_write(&b, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)), NULL);
         break;
      case Ist_StoreG:
         if (record) {
            IRStoreG* sg = st->Ist.StoreG.details;
            add_write(&b, sg->addr, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)), sg->guard);
         }
         break;
      case Ist_LoadG:
         if (record) {
            IRLoadG* lg = st->Ist.LoadG.details;
            IRType ty = Ity_INVALID, wide = Ity_INVALID;
            typeOfIRLoadGOp(lg->cvt, &wide, &ty);
            add_read(&b, lg->addr, sizeofIRType(ty), lg->guard);
         }
         break;
      case Ist_Dirty:
         if (record) {
            IRDirty* d = st->Ist.Dirty.details;
            if (d->mFx != Ifx_None) {
               if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) add_read(&b, d->mAddr, d->mSize, NULL);
               if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify) add_write(&b, d->mAddr, d->mSize, NULL);
            }
         }
         break;
      case Ist_CAS:
         if (record) {
            IRCAS* cas = st->Ist.CAS.details;
            Int size = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
            add_read(&b, cas->addr, size, NULL);
            add_write(&b, cas->addr, size, NULL);
         }
         break;
      case Ist_LLSC:
         if (record) {
            if (st->Ist.LLSC.storedata == NULL) {
               add_read(&b, st->Ist.LLSC.addr, sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)), NULL);
               emit(&b); /* as Lackey: nothing between LL and SC */
            } else {
               add_write(&b, st->Ist.LLSC.addr, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)), NULL);
            }
         }
         break;
      case Ist_Exit:
         emit(&b);
         break;
      default:
         break;
      }
      addStmtToIRSB(out, st);
   }
   emit(&b);
   Bool chosen_ret = follow_calls && last_chosen;
   if (in->jumpkind == Ijk_Ret && ((frames && last_main) || chosen_ret)) {
      IRTemp t = newIRTemp(out->tyenv, Ity_I64);
      addStmtToIRSB(out, IRStmt_WrTmp(t, IRExpr_Get(layout->offset_SP, Ity_I64)));
      IRDirty* di = unsafeIRDirty_0_N(2, "stride_leave", VG_(fnptr_to_fnentry)(on_leave),
                                      mkIRExprVec_2(IRExpr_RdTmp(t), mkIRExpr_HWord(chosen_ret ? 1 : 0)));
      addStmtToIRSB(out, IRStmt_Dirty(di));
   }
   return out;
}

/* ---------------------------------------------------------------- allocations */

#define ALLOC_FRAMES 12

static Bool st_client_request(ThreadId tid, UWord* arg, UWord* ret) {
   if (!VG_IS_TOOL_USERREQ('S', 'T', arg[0])) return False;
   *ret = 0;
   if (arg[0] == ST_REQ_ENTER) {
      alloc_depth[tid]++;
      return True;
   }
   if (arg[0] != ST_REQ_ALLOC && arg[0] != ST_REQ_FREE) return False;
   /* Only the outermost allocator call is the program's (new calls malloc, realloc may free). */
   if (alloc_depth[tid] > 0 && --alloc_depth[tid] > 0) return True;
   if (detached || out_fd < 0) return True;
   if (arg[0] == ST_REQ_FREE) {
      if (arg[1]) control(ST_FREE, 0, arg[1], 0, tid);
      return True;
   }
   if (arg[2] == 0) return True; /* the allocation failed */
   Addr ips[ALLOC_FRAMES];
   UInt n = VG_(get_StackTrace)(tid, ips, ALLOC_FRAMES, NULL, NULL, 0);
   control(ST_ALLOC, 1 + (n + 1) / 2, arg[2], (UShort)(arg[1] | n << 8), tid);
   slot(arg[3], arg[4]);
   for (UInt k = 0; k < n; k += 2) slot(ips[k], k + 1 < n ? ips[k + 1] : 0);
   return True;
}

/* ---------------------------------------------------------------- tool plumbing */

static void st_post_clo_init(void) {
   if (out_fd < 0) {
      VG_(umsg)("stride: --out-fd=N is required (Stride starts this tool itself)\n");
      VG_(exit)(2);
   }
   if (close_log_fd > 2) VG_(close)((Int)close_log_fd); /* the core logs to its own copy */
   out_fd = VG_(safe_fd)((Int)out_fd);
   if (out_fd < 0) {
      VG_(umsg)("stride: --out-fd is not an open file descriptor\n");
      VG_(exit)(2);
   }
   open_ring();
   VG_(atfork)(NULL, NULL, on_fork_child);
   points = VG_(HT_construct)("stride.points");
   follow_depth = VG_(calloc)("stride.follow", VG_N_THREADS, sizeof(UInt));
   follow_sp = VG_(calloc)("stride.follow_sp", VG_N_THREADS, sizeof(*follow_sp));
   alloc_depth = VG_(calloc)("stride.alloc", VG_N_THREADS, sizeof(UInt));
   start_ms = VG_(read_millisecond_timer)();
   control(ST_HEADER, 1, ST_MAGIC, ST_FORMAT_VERSION, 0);
   slot((ULong)VG_(getpid)(), 0);
   flush(); /* Stride learns the pid before the program runs */
}

/* execve replaces the process, and Valgrind (without --trace-children) with it: no fini runs,
   so what the buffer holds goes out now. Called before the core's own execve wrapper. A forked
   child (reader_gone, its fds closed) has nothing to send. */
static void st_pre_syscall(ThreadId tid, UInt syscallno, UWord* args, UInt nArgs) {
   if (syscallno != __NR_execve && syscallno != __NR_execveat) return;
   if (reader_gone || out_fd < 0) return;
   control(ST_EXEC, 0, 0, 0, tid);
   flush();
}

static void st_post_syscall(ThreadId tid, UInt syscallno, UWord* args, UInt nArgs, SysRes res) {}

static void st_fini(Int exitcode) {
   control(ST_EXIT, 0, (ULong)(Long)exitcode, 0, cur_tid);
   flush();
}

static Bool st_process_cmd_line_option(const HChar* arg) {
   const HChar* s;
   if VG_INT_CLO(arg, "--out-fd", out_fd) {}
   else if VG_INT_CLO(arg, "--ring-fd", ring_fd) {}
   else if VG_INT_CLO(arg, "--ack-fd", ack_fd) {}
   else if VG_INT_CLO(arg, "--ring-blocks", ring_blocks) {}
   else if VG_STR_CLO(arg, "--fn", s) {
      if (n_fns == MAX_FNS) VG_(fmsg_bad_option)(arg, "at most %d functions\n", MAX_FNS);
      fn_names[n_fns++] = s;
   }
   else if VG_STR_CLO(arg, "--exe", exe_path) {}
   else if VG_BOOL_CLO(arg, "--follow-calls", follow_calls) {}
   else if VG_BOOL_CLO(arg, "--frames", frames) {}
   else if VG_INT_CLO(arg, "--max-events", max_events) {}
   else if VG_INT_CLO(arg, "--max-ms", max_ms) {}
   else if VG_BOOL_CLO(arg, "--stop-at-limit", stop_at_limit) {}
   else if VG_BOOL_CLO(arg, "--context", context) {}
   else if VG_INT_CLO(arg, "--context-line", context_line) {
      if (context_line < 1 || context_line > 4096 || (context_line & (context_line - 1)) != 0)
         VG_(fmsg_bad_option)(arg, "the line must be a power of two from 1 to 4096\n");
      ctx_shift = 0;
      while ((1L << ctx_shift) < context_line) ctx_shift++;
   }
   else if VG_INT_CLO(arg, "--close-log-fd", close_log_fd) {}
   else return False;
   return True;
}

static void st_print_usage(void) {
   VG_(printf)(
      "    --out-fd=<n>            write the binary record stream (format %d) to fd n\n"
      "    --ring-fd=<n>           put the records in this shared memory ring instead; fd n\n"
      "                            (--out-fd) gets one token per full block\n"
      "    --ack-fd=<n>            where Stride gives blocks of the ring back (one byte each)\n"
      "    --ring-blocks=<n>       blocks in the ring (of %d records each)\n"
      "    --fn=<name>             record only this function's instructions (repeatable;\n"
      "                            OBJECT:name for a shared object's)\n"
      "    --follow-calls=no|yes   also record what the chosen functions call [no]\n"
      "    --frames=yes|no         report entries and returns of the program's functions [yes]\n"
      "    --max-events=<n>        detach after n accesses [no limit]\n"
      "    --max-ms=<n>            detach after n milliseconds [no limit]\n"
      "    --stop-at-limit=no|yes  at a limit, kill the program (SIGKILL) instead of detaching [no]\n"
      "    --context=no|yes        with --fn: the rest of the program's accesses as context\n"
      "                            records (no access point) [no]\n"
      "    --context-line=<n>      fold context accesses per line of n bytes [64]\n"
      "    --close-log-fd=N        close fd N (the --log-fd given) in the program [none]\n"
      "    --exe=<path>            the program's path as mapped (default: its name)\n",
      ST_FORMAT_VERSION, ST_RING_BLOCK_RECORDS);
}
static void st_print_debug_usage(void) {}

static void st_pre_clo_init(void) {
   VG_(details_name)("Stride");
   VG_(details_version)("3");
   VG_(details_description)("memory access recorder for Stride");
   VG_(details_copyright_author)("the Stride authors");
   VG_(details_bug_reports_to)("the Stride project");
   VG_(basic_tool_funcs)(st_post_clo_init, st_instrument, st_fini);
   VG_(needs_command_line_options)(st_process_cmd_line_option, st_print_usage, st_print_debug_usage);
   VG_(needs_client_requests)(st_client_request);
   VG_(needs_syscall_wrapper)(st_pre_syscall, st_post_syscall);
   VG_(track_start_client_code)(on_thread_start);
   VG_(track_pre_thread_ll_create)(on_thread_create);
}

VG_DETERMINE_INTERFACE_VERSION(st_pre_clo_init)

/**
 * Stride's Frida agent (bundled to out/agent/stride-agent.js, loaded by the host with
 * session.createScript). It waits for the host's 'start', then:
 *  - hooks each chosen function with Interceptor; a sampled call follows its thread with
 *    Stalker for the call's duration (nested chosen calls share the follow), and records
 *    entry/exit with the stack pointer;
 *  - the Stalker transform and the per-instruction callout are C (CModule, cmodule/): they
 *    compute each memory operand's effective address and append fixed-size records to a
 *    ring that this script drains every DRAIN_MS into send(header, buffer) batches;
 *  - malloc/calloc/realloc (reallocarray and C++ new end there), the aligned allocators (posix_memalign, aligned_alloc,
 *    memalign, valloc, pvalloc) and free are recorded in the same ring with a short backtrace;
 *  - sampling (Mohan section 4) removes or pauses the hooks; 'stop' removes everything,
 *    drains what is left and says 'stopped', after which the target runs untouched.
 * Backpressure: at most maxInFlight batches are unacknowledged; past that the ring fills
 * and the traced threads wait for room (ring.c), so a slow host slows the target rather
 * than losing records.
 */
import { CMODULE_SOURCE } from './cmodule-source'
import { AllocKind, RECORD_BYTES, RecordType, STATE, STATE_BYTES, type AgentMessage, type HostMessage } from './protocol'
import { SamplingPlan } from './sampling'

const DRAIN_MS = 10
const DRAIN_MAX_RECORDS = 16384
const BACKTRACE_FRAMES = 4
/** How long a crashing thread waits for the last messages to leave (seconds). */
const CRASH_FLUSH_S = 0.3
/** How long an exiting program waits for its exit status to leave (seconds). */
const EXIT_FLUSH_S = 0.1
/** Yields a producer waits for ring room before dropping a record (the host is gone by then). */
const SPIN_LIMIT = 2_000_000
/**
 * How long stop and pause wait for followed threads to return from their chosen calls, so
 * each lets itself go (and clears its AVX upper state, upper-state.c) rather than being
 * unfollowed from outside mid-call (ms). A call still running past it is unfollowed then.
 */
const LEAVE_WAIT_MS = 500

type StartMessage = Extract<HostMessage, { type: 'start' }>

function post(message: AgentMessage, data: ArrayBuffer | null = null): void {
  send(message, data)
}

class Tracer {
  private readonly cm: CModule
  private readonly state: NativePointer
  // Kept referenced: Memory.alloc blocks are freed when their NativePointer is collected.
  private readonly records: NativePointer
  private readonly ranges: NativePointer
  private readonly drainBuffer: NativePointer
  private readonly recordFn: NativeFunction<void, [NativePointerValue, number, number, NativePointerValue, NativePointerValue, NativePointerValue]>
  private readonly drainFn: NativeFunction<number, [NativePointerValue, NativePointerValue, number]>
  private readonly plan: SamplingPlan
  /** Per chosen function: the agent's listener, and the native one that clears the upper state after it. */
  private readonly hooks = new Map<string, InvocationListener[]>()
  /** upper-state.c's onLeave, where Stalker leaves the AVX upper state dirty (null: it does not). */
  private readonly clearUpper: NativePointer | null
  private readonly heapHooks: InvocationListener[] = []
  /** Threads being followed, with how many sampled chosen calls each is inside. */
  private readonly depth = new Map<ThreadId, number>()
  private seq = 0
  private acked = 0
  private stopping = false
  private drainTimer: ReturnType<typeof setInterval> | null = null
  private periodTimer: ReturnType<typeof setTimeout> | null = null

  constructor(private readonly config: StartMessage) {
    this.cm = new CModule(CMODULE_SOURCE)
    const capacity = config.ringCapacity
    this.records = Memory.alloc(capacity * RECORD_BYTES)
    this.ranges = Memory.alloc(Math.max(1, config.functions.length) * 16)
    config.functions.forEach((f, i) => {
      const start = ptr(f.start)
      this.ranges.add(i * 16).writePointer(start)
      this.ranges.add(i * 16 + 8).writePointer(start.add(f.size))
    })
    this.state = Memory.alloc(STATE_BYTES)
    this.state.add(STATE.capacity).writeU32(capacity)
    this.state.add(STATE.rangeCount).writeU32(config.functions.length)
    this.state.add(STATE.ranges).writePointer(this.ranges)
    this.state.add(STATE.records).writePointer(this.records)
    this.state.add(STATE.spinLimit).writeS32(SPIN_LIMIT)
    this.state.add(STATE.enabled).writeS32(1)
    this.drainBuffer = Memory.alloc(DRAIN_MAX_RECORDS * RECORD_BYTES)
    this.recordFn = new NativeFunction(this.cm.stride_record as NativePointer, 'void', ['pointer', 'uint32', 'uint32', 'pointer', 'pointer', 'pointer'])
    this.drainFn = new NativeFunction(this.cm.stride_drain as NativePointer, 'uint32', ['pointer', 'pointer', 'uint32'])
    this.plan = new SamplingPlan(config.sampling, config.functions.map((f) => f.start))
    const saved = new NativeFunction(this.cm.stride_upper_state_saved as NativePointer, 'int', [])
    this.clearUpper = saved() !== 0 ? (this.cm.stride_clear_upper as NativePointer) : null
  }

  start(): void {
    for (const f of this.config.functions) this.hook(f.start)
    if (this.config.trackHeap) this.hookHeap()
    this.drainTimer = setInterval(() => this.drain(false), DRAIN_MS)
    const s = this.config.sampling
    if (s.kind === 'periodic') this.periodTimer = setTimeout(() => this.pause(s.periodMs, s.intervalMs), s.periodMs)
  }

  private record(type: number, kind: number, a: NativePointerValue, b: NativePointerValue, c: NativePointerValue): void {
    this.recordFn(this.state, type, kind, a, b, c)
  }

  private hook(start: string): void {
    if (this.hooks.has(start)) return
    const tracer = this
    const fn = ptr(start)
    const listeners = [
      Interceptor.attach(fn, {
        onEnter() {
          this.sampled = tracer.plan.shouldSample(start)
          if (!this.sampled) return
          tracer.record(RecordType.enter, 0, fn, this.context.sp, this.returnAddress)
          const tid = this.threadId
          const d = tracer.depth.get(tid) ?? 0
          if (d === 0) Stalker.follow(tid, { transform: tracer.cm.transform as NativePointer, data: tracer.state })
          tracer.depth.set(tid, d + 1)
        },
        onLeave() {
          if (!this.sampled) return
          tracer.record(RecordType.exit, 0, fn, this.context.sp, NULL)
          const tid = this.threadId
          const d = (tracer.depth.get(tid) ?? 1) - 1
          if (d <= 0) {
            tracer.depth.delete(tid)
            Stalker.unfollow(tid)
          } else tracer.depth.set(tid, d)
          // From the agent's thread: detached here, the listener after this one would not
          // run for this call, and the thread would keep its dirty upper state.
          if (tracer.plan.sampled(start) === 'remove') setTimeout(() => tracer.unhook(start, 'removed'), 0)
        }
      })
    ]
    // Attached after the agent's listener, so it runs once this thread's unfollow has taken effect.
    if (this.clearUpper) listeners.push(Interceptor.attach(fn, { onLeave: this.clearUpper }))
    this.hooks.set(start, listeners)
  }

  private unhook(start: string, why: 'removed' | 'paused'): void {
    const listeners = this.hooks.get(start)
    if (!listeners) return
    for (const l of listeners) l.detach()
    this.hooks.delete(start)
    post({ type: 'sampling', start, state: why })
    if (why === 'removed' && this.plan.finished) post({ type: 'sampling-done' })
  }

  private hookHeap(): void {
    const tracer = this
    const frames = (chain: NativePointer[]) => chain.forEach((pc, i) => tracer.record(RecordType.frame, i, pc, NULL, NULL))
    // One hook per address: glibc exports some allocators as aliases of one function, and an
    // Interceptor hook fires for every name at its address. An allocator that calls another
    // hooked one inside libc is not hooked itself (reallocarray ends in realloc's code, C++'s
    // operator new in malloc's), so each allocation is recorded once; the aligned allocators
    // share only glibc's internal _mid_memalign.
    const hooked = new Set<string>()
    const alloc = (
      name: string,
      kind: number,
      size: (args: InvocationArguments) => NativePointer,
      old: (args: InvocationArguments) => NativePointer,
      block: (retval: InvocationReturnValue, saved: NativePointer) => NativePointer = (retval) => retval,
      saved: (args: InvocationArguments) => NativePointer = () => NULL
    ) => {
      const target = Module.findGlobalExportByName(name)
      if (!target || hooked.has(target.toString())) return
      hooked.add(target.toString())
      this.heapHooks.push(
        Interceptor.attach(target, {
          onEnter(args) {
            this.size = size(args)
            this.old = old(args)
            this.saved = saved(args)
            this.chain = callChain(this.context)
          },
          onLeave(retval) {
            const result = block(retval, this.saved as NativePointer)
            if (result.isNull()) return
            tracer.record(RecordType.alloc, kind, result, this.size as NativePointer, this.old as NativePointer)
            frames(this.chain as NativePointer[])
          }
        })
      )
    }
    const product = (a: NativePointer, b: NativePointer) => ptr((BigInt(a.toString()) * BigInt(b.toString())).toString())
    alloc('malloc', AllocKind.malloc, (a) => a[0]!, () => NULL)
    alloc('calloc', AllocKind.calloc, (a) => product(a[0]!, a[1]!), () => NULL)
    alloc('realloc', AllocKind.realloc, (a) => a[1]!, (a) => a[0]!)
    // The aligned allocators: PolyBench's arrays come from posix_memalign, which returns the
    // block through its first argument (0 on success).
    alloc('posix_memalign', AllocKind.malloc, (a) => a[2]!, () => NULL, (retval, out) => (retval.toInt32() === 0 ? out.readPointer() : NULL), (a) => a[0]!)
    alloc('aligned_alloc', AllocKind.malloc, (a) => a[1]!, () => NULL)
    alloc('memalign', AllocKind.malloc, (a) => a[1]!, () => NULL)
    alloc('valloc', AllocKind.malloc, (a) => a[0]!, () => NULL)
    alloc('pvalloc', AllocKind.malloc, (a) => a[0]!, () => NULL)
    const free = Module.findGlobalExportByName('free')
    if (free)
      this.heapHooks.push(
        Interceptor.attach(free, {
          onEnter(args) {
            if (!args[0]!.isNull()) tracer.record(RecordType.free, 0, args[0]!, NULL, NULL)
          }
        })
      )
  }

  /** Periodic sampling: every hook off (and every followed thread let go) for intervalMs. */
  private pause(periodMs: number, intervalMs: number): void {
    if (this.stopping) return
    this.plan.setPaused(true)
    this.state.add(STATE.enabled).writeS32(0)
    this.afterThreadsLeave(() => {
      if (this.stopping) return
      for (const start of [...this.hooks.keys()]) this.unhook(start, 'paused')
      this.releaseThreads()
      this.periodTimer = setTimeout(() => {
        if (this.stopping) return
        this.plan.setPaused(false)
        this.state.add(STATE.enabled).writeS32(1)
        for (const start of this.plan.active()) {
          this.hook(start)
          post({ type: 'sampling', start, state: 'resumed' })
        }
        this.periodTimer = setTimeout(() => this.pause(periodMs, intervalMs), periodMs)
      }, intervalMs)
    })
  }

  /**
   * Runs `then` once no thread is inside a sampled call (each has unfollowed itself on its
   * way out), or after LEAVE_WAIT_MS. No new call is sampled meanwhile (the plan is paused).
   */
  private afterThreadsLeave(then: () => void): void {
    const until = Date.now() + LEAVE_WAIT_MS
    const check = () => (this.depth.size === 0 || Date.now() >= until ? then() : setTimeout(check, 1))
    check()
  }

  private releaseThreads(): void {
    for (const tid of this.depth.keys()) Stalker.unfollow(tid)
    this.depth.clear()
    Stalker.flush()
  }

  stopFunction(start: string): void {
    // No new call of it is sampled from here; the calls under way end through the hook, so
    // their threads let themselves go. Detached under a thread, the hook would leave it
    // followed until stop, and Frida then takes ~25 s to unload the script.
    if (this.plan.stop(start)) this.afterThreadsLeave(() => this.unhook(start, 'removed'))
  }

  ack(seq: number): void {
    this.acked = Math.max(this.acked, seq)
  }

  /** Sends what the ring holds, up to maxInFlight unacknowledged batches (all of it when final). */
  private drain(final: boolean): void {
    for (;;) {
      if (!final && this.seq - this.acked >= this.config.maxInFlight) return
      const n = this.drainFn(this.state, this.drainBuffer, DRAIN_MAX_RECORDS)
      if (n === 0) return
      this.seq++
      post(
        { type: 'batch', seq: this.seq, records: n, lost: this.state.add(STATE.lost).readS32(), untraced: this.state.add(STATE.untraced).readS32() },
        this.drainBuffer.readByteArray(n * RECORD_BYTES)
      )
      if (n < DRAIN_MAX_RECORDS) return
    }
  }

  /** The process is exiting: send every record still in the ring (the host keeps them). */
  flushAtExit(): void {
    if (this.drainTimer) clearInterval(this.drainTimer)
    this.drain(true)
  }

  /** Removes every hook and follow; the target then runs at full speed. */
  stop(): void {
    if (this.stopping) return
    this.stopping = true
    if (this.periodTimer) clearTimeout(this.periodTimer)
    this.plan.setPaused(true)
    this.state.add(STATE.enabled).writeS32(0)
    this.afterThreadsLeave(() => {
      for (const listeners of this.hooks.values()) for (const l of listeners) l.detach()
      this.hooks.clear()
      for (const l of this.heapHooks) l.detach()
      this.heapHooks.length = 0
      this.releaseThreads()
      // Threads unfollowed from here leave Stalker at their next block boundary; give them a moment.
      setTimeout(() => {
        if (this.drainTimer) clearInterval(this.drainTimer)
        this.drain(true)
        Stalker.garbageCollect()
        post({ type: 'stopped', lost: this.state.add(STATE.lost).readS32(), untraced: this.state.add(STATE.untraced).readS32() })
      }, 50)
    })
  }
}

/**
 * An allocator's call site and the callers above it, read at the allocator's first
 * instruction (an Interceptor onEnter): [site, caller, caller's caller, ...], at most
 * BACKTRACE_FRAMES callers. Gum's accurate backtracer gives libunwind the hook's context as
 * if its pc were a return address (unw_init_local looks up pc - 1); at a function's first
 * instruction that is the previous function's code, so on code without frame pointers
 * (-O2) it takes no step and only the site (the word at sp) comes back. Seen from the
 * caller instead - pc at the return address the call pushed, sp just past it, every
 * callee-saved register as the caller left it (the allocator has not run yet) - the same
 * unwinder walks the chain through helpers like `xs = alloc_arr(n)`. The context is the
 * hook's own, so it is put back before the allocator runs.
 */
function callChain(ctx: CpuContext): NativePointer[] {
  const pc = ctx.pc
  const sp = ctx.sp
  const site = sp.readPointer()
  let above: NativePointer[]
  ctx.pc = site
  ctx.sp = sp.add(Process.pointerSize)
  try {
    above = Thread.backtrace(ctx, Backtracer.ACCURATE)
  } finally {
    ctx.pc = pc
    ctx.sp = sp
  }
  // On x86 the first item is the word at the context's sp, taken as a return address: here
  // that is the caller's own stack, not a frame.
  return [site, ...above.slice(1, 1 + BACKTRACE_FRAMES)]
}

/** Bytes Interceptor overwrites at a hooked x86-64 function's entry (a 5-byte jmp). */
const INTERCEPTOR_REDIRECT_BYTES = 5

/**
 * Interceptor moves the instructions covering a hooked function's first bytes into its
 * trampoline; they run there, outside the function's range, so Stalker's callouts never see
 * them. Counts the memory-touching ones (typically register pushes) so the host can say
 * how many accesses per call a trace cannot contain.
 */
function unrecordedPrologue(start: string): number {
  let at = ptr(start)
  let offset = 0
  let count = 0
  while (offset < INTERCEPTOR_REDIRECT_BYTES) {
    const insn = Instruction.parse(at) as X86Instruction
    const stack = /^(push|pop|call|ret|leave)/.test(insn.mnemonic)
    const memory = insn.operands.some((o) => o.type === 'mem') && !/^(lea|nop)/.test(insn.mnemonic)
    if (stack || memory) count++
    offset += insn.size
    at = insn.next
  }
  return count
}

let tracer: Tracer | null = null

function onStart(m: StartMessage): void {
  if (Process.arch !== 'x64') {
    post({ type: 'fatal', code: 'architecture', message: `Stride's Frida agent traces x86-64 processes; this one is ${Process.arch}` })
    return
  }
  for (const f of m.functions) {
    if (Process.findModuleByAddress(ptr(f.start)) === null) {
      post({ type: 'fatal', code: 'function-not-found', message: `function ${f.name} (${f.start}) is not in any module of process ${Process.id}` })
      return
    }
  }
  try {
    tracer = new Tracer(m)
  } catch (e) {
    post({ type: 'fatal', code: 'cmodule', message: `the agent's C module did not compile: ${e instanceof Error ? e.message : String(e)}` })
    return
  }
  tracer.start()
  const prologue: Record<string, number> = {}
  for (const f of m.functions) prologue[f.name] = unrecordedPrologue(f.start)
  post({ type: 'ready', arch: Process.arch, pid: Process.id, functions: m.functions.map((f) => f.name), prologue })
}

function listen(): void {
  recv((message: HostMessage) => {
    switch (message.type) {
      case 'start':
        if (!tracer) onStart(message)
        break
      case 'ack':
        tracer?.ack(message.seq)
        break
      case 'stop-function':
        tracer?.stopFunction(message.start)
        break
      case 'stop':
        if (tracer) tracer.stop()
        else post({ type: 'stopped', lost: 0, untraced: 0 })
        break
    }
    listen()
  })
}

listen()

// Frida calls dispose when the process exits (or the script unloads), after flushing
// Stalker and before the messages' channel closes: without it, a program that ends
// mid-trace would lose the last DRAIN_MS of records.
rpc.exports = {
  dispose() {
    tracer?.flushAtExit()
  }
}

// A crash (SIGSEGV, SIGABRT, ...) in the target: send what the ring holds first, then let
// the process die as it would have (false: not handled). Set once, when the script loads
// (it was set again inside the message loop, which replaced this one at the first message).
Process.setExceptionHandler((details) => {
  const access = details.memory ? ` (${details.memory.operation} of ${details.memory.address})` : ''
  post({ type: 'crash', description: `${details.type} at ${details.address}${access}` })
  tracer?.flushAtExit()
  // Messages leave on Frida's own thread: give it a moment before the process dies.
  Thread.sleep(CRASH_FLUSH_S)
  return false
})

// The program's exit status, which Frida does not report: exit (main's return ends there
// too) and _exit, one hook per address. Frida's own exit handling hooks them first and has
// flushed the script's messages by the time this runs, so this one waits a moment for its
// message to leave, as the crash handler does. Stays after 'stop' (a launched program's
// trace ends when the program does).
let exitReported = false
const exitHooked = new Set<string>()
for (const name of ['exit', '_exit']) {
  const at = Module.findGlobalExportByName(name)
  if (!at || exitHooked.has(at.toString())) continue
  exitHooked.add(at.toString())
  Interceptor.attach(at, {
    onEnter(args) {
      if (exitReported) return
      exitReported = true
      post({ type: 'exit', code: args[0]!.toInt32() & 0xff })
      tracer?.flushAtExit()
      Thread.sleep(EXIT_FLUSH_S)
    }
  })
}

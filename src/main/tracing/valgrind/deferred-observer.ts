/**
 * The naming's observer before it exists. The correlator needs the program's layout (nm, then
 * gdb: 0.3-0.5 s after Valgrind's launch on a small program, more on one with much debug
 * information), and the tool's records used to wait in the pipe for it, the program stopped and
 * the trace worker idle. Now the tracer reads on: the observer's calls are kept here, in order
 * (each batch's accesses copied), and replayed into the observer once it arrives, which then
 * takes the calls itself. What is kept is bounded (`full`): past MAX_KEPT_ACCESSES accesses or
 * MAX_KEPT_CALLS calls the tracer
 * pauses reading until the observer arrives, as before.
 */
import type { ToolObserver } from './tool-observer'

/** About 56 MB at most (14 bytes an access): a few hundred milliseconds of the tool's records. */
export const MAX_KEPT_ACCESSES = 1 << 22
/** Calls kept as objects (function entries and returns, allocations, batches): ~20 MB at most. */
export const MAX_KEPT_CALLS = 1 << 18

type Call =
  | { k: 'program'; base: number }
  | { k: 'library'; path: string; base: number }
  | { k: 'enter'; entry: number; sp: number; thread: number }
  | { k: 'leave'; sp: number; thread: number }
  | { k: 'alloc'; e: { kind: 'alloc'; ptr: number; size: number; old: number; site: number }; frames: number[] }
  | { k: 'free'; ptr: number }
  | { k: 'one'; point: number; kind: number; address: number; thread: number }
  | { k: 'batch'; points: Uint32Array; addresses: Float64Array; threads: Uint16Array; kindOf: Uint8Array }

export class DeferredObserver implements ToolObserver {
  /** Not asked of a tool observer (the tool reports entries and returns whatever it is). */
  readonly wantsInstructions = false
  private calls: Call[] = []
  private kept = 0

  /** Reading should wait for the observer: as many accesses as it may keep are kept. */
  get full(): boolean {
    return this.kept >= MAX_KEPT_ACCESSES || this.calls.length >= MAX_KEPT_CALLS
  }

  /** Accesses kept so far. */
  get keptAccesses(): number {
    return this.kept
  }

  programLoaded(base: number): void {
    this.calls.push({ k: 'program', base })
  }

  libraryLoaded(path: string, base: number): void {
    this.calls.push({ k: 'library', path, base })
  }

  enterFunction(entry: number, sp: number, thread: number): void {
    this.calls.push({ k: 'enter', entry, sp, thread })
  }

  leaveFunction(sp: number, thread: number): void {
    this.calls.push({ k: 'leave', sp, thread })
  }

  allocated(e: { kind: 'alloc'; ptr: number; size: number; old: number; site: number }, frames: number[]): void {
    this.calls.push({ k: 'alloc', e: { ...e }, frames: [...frames] })
  }

  freed(ptr: number): void {
    this.calls.push({ k: 'free', ptr })
  }

  attribute(point: number, kind: number, address: number, thread: number): void {
    this.calls.push({ k: 'one', point, kind, address, thread })
    this.kept++
  }

  attributeBatch(points: Uint32Array, addresses: Float64Array, threads: Uint16Array, from: number, to: number, kindOf: Uint8Array): void {
    if (to <= from) return
    // The tracer reuses its batch arrays; a point's kind never changes, and a grown kinds
    // array is a new one (this one stays as it is).
    this.calls.push({ k: 'batch', points: points.slice(from, to), addresses: addresses.slice(from, to), threads: threads.slice(from, to), kindOf })
    this.kept += to - from
  }

  /** Replays every kept call into `observer` (null: none wanted them), in order, and keeps nothing after. */
  replayInto(observer: ToolObserver | null): void {
    const calls = this.calls
    this.calls = []
    this.kept = 0
    if (!observer) return
    for (const c of calls) {
      switch (c.k) {
        case 'program':
          observer.programLoaded(c.base)
          break
        case 'library':
          observer.libraryLoaded(c.path, c.base)
          break
        case 'enter':
          observer.enterFunction(c.entry, c.sp, c.thread)
          break
        case 'leave':
          observer.leaveFunction(c.sp, c.thread)
          break
        case 'alloc':
          observer.allocated(c.e, c.frames)
          break
        case 'free':
          observer.freed(c.ptr)
          break
        case 'one':
          observer.attribute(c.point, c.kind, c.address, c.thread)
          break
        case 'batch':
          observer.attributeBatch(c.points, c.addresses, c.threads, 0, c.points.length, c.kindOf)
          break
      }
    }
  }
}

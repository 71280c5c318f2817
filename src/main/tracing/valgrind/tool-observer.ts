/** What the tool path tells the data-structure naming (the Correlator implements it). */
export interface ToolObserver {
  /** Whether function entries and returns are wanted (frames of stack locals). */
  readonly wantsInstructions: boolean
  programLoaded(base: number): void
  /** A shared object appeared in the process at `base` (its globals may be placed). */
  libraryLoaded(path: string, base: number): void
  enterFunction(entry: number, sp: number, thread: number): void
  leaveFunction(sp: number, thread: number): void
  allocated(e: { kind: 'alloc'; ptr: number; size: number; old: number; site: number }, frames: number[]): void
  freed(ptr: number): void
  attribute(point: number, kind: number, address: number, thread: number): void
  /** attribute() for accesses from..to-1 of the batch, in order; a point's kind is kindOf[point]. */
  attributeBatch(points: Uint32Array, addresses: Float64Array, threads: Uint16Array, from: number, to: number, kindOf: Uint8Array): void
}

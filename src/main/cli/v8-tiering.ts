/**
 * When V8 optimizes a function: after four times the bytecode it runs by default before its
 * optimizing compiler takes it (the interrupt budget). A command lives a few seconds, and its
 * hot loops are native code: most of what V8 optimized by default (~430 functions in a
 * whole-program trace of lz4) ran briefly, and compiling them was 7% of the trace's CPU,
 * on V8's helper threads, beside the trace's own on two cores. Functions that stay hot (a
 * chunk's JavaScript, called thousands of times) are still optimized, a little later.
 */
import { setFlagsFromString } from 'node:v8'

/** V8's default (67,584 bytes of bytecode, V8 11.3), times four. */
export const INTERRUPT_BUDGET = 4 * 67584

/** Sets the budget for the whole process (its worker threads too) before the command's modules load. */
export function tierUpLater(): void {
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`)
}

/**
 * Access kinds as numbers: how the tracers stream them, the store keeps them (`points.kind`)
 * and the simulator reads them. The one definition; `ACCESS_KINDS[code]` is the name.
 */
export const KIND_READ = 0
export const KIND_WRITE = 1
/** A read and a write by one instruction (x86 `add %eax,(mem)`). */
export const KIND_MODIFY = 2

export type AccessKindCode = typeof KIND_READ | typeof KIND_WRITE | typeof KIND_MODIFY

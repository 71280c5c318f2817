/** Which loaded objects are the system's (allocators, runtimes, the loader, Stride's own preloads), not the program's. */

/** Libraries whose frames are never "the program's own": allocators, runtimes, Stride's interposer. */
const SYSTEM_OBJECT = /(^|\/)(libc|libstdc\+\+|libgcc_s|libm|libpthread|ld-linux[^/]*|ld|libdl|stride-allocs|vgpreload_[^/]*)([.-][^/]*)?\.so[^/]*$/

export function isSystemObject(path: string): boolean {
  return SYSTEM_OBJECT.test(path)
}

/**
 * Installed by the system (/lib, /usr/lib and their 32/64-bit twins, and /usr/libexec, where
 * Valgrind's own preload is mapped into every traced program), not built with the program.
 */
export function inSystemFolder(path: string): boolean {
  return /^\/(usr\/)?lib(32|64|x32)?\//.test(path) || path.startsWith('/usr/libexec/')
}

/**
 * `LIBRARY:function` names a function of a shared object the program loads
 * (`libfix.so:lib_sum`, `libm.so.6:sin`): the library part ends in `.so` or `.so.N`, so C++
 * names (`ns::f`) are never read as one. Pure; resolution against the program's libraries is
 * in services (ldd), matching in Stride's Valgrind tool (the object's file name).
 */
export interface LibrarySpec {
  library: string
  name: string
}

const SPEC = /^([^:\s/]+\.so(?:\.[0-9.]+)?):(?!:)(.+)$/

export function parseLibrarySpec(spec: string): LibrarySpec | null {
  const m = SPEC.exec(spec.trim())
  return m ? { library: m[1]!, name: m[2]!.trim() } : null
}

/**
 * The libraries `ldd` lists: name -> path, from "libfix.so => /dir/libfix.so (0x...)", and
 * from "/dir/libfix.so (0x...)" for a library linked by its path (no soname).
 */
export function parseLdd(text: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const line of text.split('\n')) {
    const named = /^\s*(\S+)\s+=>\s+(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line)
    const byPath = /^\s*(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line)
    if (named) out.set(named[1]!, named[2]!)
    else if (byPath) out.set(byPath[1]!.slice(byPath[1]!.lastIndexOf('/') + 1), byPath[1]!)
  }
  return out
}

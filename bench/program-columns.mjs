/**
 * The first two columns of a corpus table (program, scope): the scope is as wide as the longest
 * one, so a function's name is printed whole (cut to 26 characters, lz4's
 * LZ4_compress_fast_extState_fastReset read as another function of lz4).
 */
const PROGRAM = 12
const SCOPE = 26

export function programColumns(cases) {
  const width = Math.max(SCOPE, ...cases.map((c) => c.scope.length))
  return {
    /** `header`: the table's header line as written for 26-character scopes. */
    header: (header) => `${'program'.padEnd(PROGRAM)} ${'scope'.padEnd(width)}${header.slice(PROGRAM + 1 + SCOPE)}`,
    cells: (c) => [c.p.name.padEnd(PROGRAM), c.scope.padEnd(width)]
  }
}

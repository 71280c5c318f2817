/** A program that did not exit 0 says so on a trace's summary line, Valgrind's or Frida's (its status is also in `info`). */
export function exitNote(exit: { code: number | null; signal: string | null } | null | undefined): string {
  if (!exit) return ''
  if (exit.signal) return `; the program was killed by ${exit.signal}`
  return exit.code !== null && exit.code !== 0 ? `; the program exited with status ${exit.code}` : ''
}

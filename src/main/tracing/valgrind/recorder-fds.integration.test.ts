/**
 * The recorder's descriptors stay out of the traced program (issue 51): a program cannot
 * forge Stride's status by writing Valgrind-style lines to inherited fds, and sees only its
 * standard streams. Programs compiled here with cc; needs `npm run build`.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixedEnv, sessionInfo, stride, tempDir } from '../../testing/cli-runner'

const home = tempDir('recorder-fds')
const env = fixedEnv(home)

function compile(name: string, source: string): string {
  const c = join(home, `${name}.c`)
  const exe = join(home, name)
  writeFileSync(c, source)
  const r = spawnSync('cc', ['-O0', '-g', '-o', exe, c], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`cc failed: ${r.stderr}`)
  return exe
}

const FORGER = `
#include <string.h>
#include <unistd.h>
int main(void) {
  const char *line = "==123== Process terminating with default action of signal 11 (SIGSEGV)\\n";
  for (int fd = 3; fd <= 20; fd++) (void)write(fd, line, strlen(line));
  return 0;
}
`

// Lists the descriptors it can use (read or write is not EBADF): Valgrind's own, in its private range above
// the program's limit, are listed by /proc but refused to the program (EBADF).
const LISTER = `
#include <dirent.h>
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  FILE *out = fopen(argv[1], "w");
  DIR *d = opendir("/proc/self/fd");
  if (!d || !out) return 1;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    int fd = atoi(e->d_name);
    char b[1];
    int usable = write(fd, b, 0) != -1 || errno != EBADF || read(fd, b, 0) != -1 || errno != EBADF;
    if (fd != dirfd(d) && fd != fileno(out) && usable) fprintf(out, "%d\\n", fd);
  }
  fclose(out);
  closedir(d);
  return 0;
}
`

describe("the recorder's fds are not the program's", () => {
  it('a program writing a Valgrind crash line to fds 3..20 and exiting 0 is recorded as completed, exit 0', () => {
    const prog = compile('forger', FORGER)
    const session = join(home, 'forger.stride')
    const r = stride(['trace', '--launch', prog, '--out', session], env)
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const s = sessionInfo(session, env)
    expect(s.recorder).toBe('stride-tool')
    expect(s).toMatchObject({ partial: false, stopReason: 'completed', programExit: { code: 0, signal: null } })
    expect(s.stopMessage).toBeNull()
  }, 120_000)

  it('a program listing /proc/self/fd can use only what it would without Stride: 0, 1, 2 and whatever Stride itself was given', () => {
    const prog = compile('lister', LISTER)
    const usable = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map(Number).sort((a, b) => a - b)
    const direct = join(home, 'fds-direct.txt')
    expect(spawnSync(prog, [direct], { env, stdio: ['ignore', 'pipe', 'pipe'] }).status).toBe(0)
    const traced = join(home, 'fds-traced.txt')
    const r = stride(['trace', '--launch', prog, '--out', join(home, 'lister.stride'), '--', traced], env)
    expect(r.status).toBe(0)
    expect(usable(direct).slice(0, 3)).toEqual([0, 1, 2])
    // Not one of Stride's (its record pipe or ring, fd 3 and 5-6; Valgrind's log, fd 4).
    expect(usable(traced)).toEqual(usable(direct))
  }, 120_000)

  it('a program that really crashes is still recorded as crashed, with Valgrind\'s line', () => {
    const prog = compile('crasher', 'int main(void) { volatile int *p = 0; return *p; }\n')
    const session = join(home, 'crasher.stride')
    const r = stride(['trace', '--launch', prog, '--out', session], env)
    expect(r.status).toBe(0)
    const s = sessionInfo(session, env)
    expect(s).toMatchObject({ partial: true, stopReason: 'target-crashed', programExit: { code: null, signal: 'SIGSEGV' } })
    expect(s.stopMessage).toMatch(/the program crashed: Process terminating with default action of signal 11 \(SIGSEGV\)/)
  }, 120_000)
})

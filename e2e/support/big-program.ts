/**
 * A C program of a real program's size, written and compiled at test time (CI has no corpus):
 * `functions` work functions over a global array each, nested loops, a heap hash table
 * allocated through a function pointer (so it can only be named by its site, as lz4's is),
 * and a small match loop inlined three times into each function (one loop header, several
 * machine-code loops per function: what lz4's LZ4_count gives). Thousands of source lines,
 * hundreds of functions and data structures, built -g -O2. The work runs in two pthreads, the
 * even-numbered functions in the first and the odd in the second, each writing its own half of
 * the table (no data race): a session of three threads with the main one.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface BigProgram {
  path: string
  source: string
  /** The line of the inlined match loop's header. */
  matchLoopLine: number
  /** Worker threads; work function f runs in worker f % workers. */
  workers: number
  lines: number
}

export function buildBigProgram(dir: string, functions = 240): BigProgram {
  const out: string[] = []
  const line = () => out.length + 1
  const workers = 2
  out.push('#include <pthread.h>', '#include <stdlib.h>', '#include <string.h>', '', '#define N 256', '')
  out.push('static void *(*volatile alloc_fn)(size_t, size_t) = calloc;', '')
  out.push('static inline int count_match(const unsigned char *a, const unsigned char *b, int n)', '{', '  int k = 0;')
  const matchLoopLine = line()
  out.push('  while (k < n && a[k] == b[k])', '    k++;', '  return k;', '}', '')
  for (let f = 0; f < functions; f++) out.push(`unsigned char g${f}[N];`)
  out.push('unsigned int *table;', '')
  for (let f = 0; f < functions; f++) {
    out.push(
      `__attribute__((noinline)) int work${f}(int reps)`,
      '{',
      '  int sum = 0;',
      '  for (int r = 0; r < reps; r++) {',
      '    for (int i = 0; i < N; i++) {',
      `      g${f}[i] = (unsigned char)(i * ${f + 3} + r);`,
      `      table[((i * ${2 * f + 1}) & ${4096 / workers - 1}) + ${(f % workers) * (4096 / workers)}] += g${f}[i];`,
      '    }',
      `    sum += count_match(g${f}, g${(f + 1) % functions}, N);`,
      `    sum += count_match(g${f} + 1, g${(f + 7) % functions}, N - 1);`,
      `    sum += count_match(g${f} + 2, g${f}, N - 2);`,
      '  }',
      '  return sum;',
      '}',
      ''
    )
  }
  for (let w = 0; w < workers; w++) {
    out.push(`static void *worker${w}(void *arg)`, '{', '  long *total = arg;', '  for (int round = 0; round < 3; round++) {')
    for (let f = w; f < functions; f += workers) out.push(`    *total += work${f}(2);`)
    out.push('  }', '  return NULL;', '}', '')
  }
  out.push('int main(void)', '{', '  table = alloc_fn(4096, sizeof *table);', `  long totals[${workers}] = {0};`, `  pthread_t threads[${workers}];`)
  for (let w = 0; w < workers; w++) out.push(`  pthread_create(&threads[${w}], NULL, worker${w}, &totals[${w}]);`)
  out.push(`  for (int w = 0; w < ${workers}; w++) pthread_join(threads[w], NULL);`)
  out.push('  free(table);', `  return (int)((totals[0] + totals[1]) & 1);`, '}', '')
  const source = join(dir, 'big.c')
  writeFileSync(source, out.join('\n'))
  const path = join(dir, 'big')
  execFileSync(process.env.CC || 'cc', ['-g', '-O2', '-pthread', '-o', path, source], { stdio: 'pipe' })
  return { path, source, matchLoopLine, workers, lines: out.length }
}

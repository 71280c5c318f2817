import { describe, expect, it } from 'vitest'
import { allocationTarget, isSystemObject, returnsName } from './name-variables'

describe('naming heap blocks after the program', () => {
  it('knows the system libraries from the program and its own shared objects', () => {
    for (const p of ['/usr/lib/x86_64-linux-gnu/libc.so.6', '/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30', '/lib64/ld-linux-x86-64.so.2', '/work/resources/native/build/stride-allocs.so', '/usr/libexec/valgrind/vgpreload_core-amd64-linux.so'])
      expect(isSystemObject(p), p).toBe(true)
    for (const p of ['/home/u/prog', '/home/u/libtable.so', '/home/u/build/libcore.so.1']) expect(isSystemObject(p), p).toBe(false)
  })

  it('takes posix_memalign\'s out-parameter, else the assigned or declared name, else a declaration macro\'s variable', () => {
    expect(allocationTarget('  int ret = posix_memalign(&new, 4096, alloc_sz);', ['new'])).toBe('new')
    expect(allocationTarget('  A = alloc2d(n);', ['A'])).toBe('A')
    expect(allocationTarget('  double *A = polybench_alloc_data(N * N, sizeof(double));', [])).toBe('A')
    expect(allocationTarget('  void *ret = xmalloc(n * elt);', [])).toBe('ret')
    expect(allocationTarget('  use(malloc(8));', [])).toBeNull()
    expect(allocationTarget('  POLYBENCH_2D_ARRAY_DECL(A,DATA_TYPE,NI,NK,ni,nk);', [])).toBe('A')
    expect(allocationTarget('  CHECK(status);', [])).toBeNull()
  })

  it('tells several allocating calls on one line apart by the rank of the call site', () => {
    const line = '  double (*A)[N] = malloc(s), (*B)[N] = malloc(s), (*C)[N] = malloc(s);'
    expect(allocationTarget(line, ['A', 'B', 'C'], { index: 1, of: 3 })).toBe('B')
    expect(allocationTarget(line, ['A', 'B', 'C'], { index: 2, of: 3 })).toBe('C')
    // Only two of the three calls were seen allocating: which is which cannot be told.
    expect(allocationTarget(line, ['A', 'B', 'C'], { index: 1, of: 2 })).toBeNull()
    expect(allocationTarget(line, ['A', 'B', 'C'])).toBeNull()
  })

  it('sees a helper that returns what it allocated', () => {
    const src = ['void *xmalloc(size_t n)', '{', '  void *p = NULL;', '  int r = posix_memalign(&p, 64, n);', '  if (r) abort();', '  return p;', '}', 'double *row(int n) {', '  double *q = malloc(n);', '  q[0] = 1;', '  return (double *) q;', '}']
    expect(returnsName(src, 3, 'p')).toBe(true)
    expect(returnsName(src, 8, 'q')).toBe(true)
    expect(returnsName(src, 3, 'r')).toBe(false)
    // Targets are source text, not patterns: `*out = malloc(n)` once failed the whole trace.
    const out = ['void get(double **out, int n) {', '  *out = malloc(n);', '  return;', '}', 'double *f(double **a, int i) {', '  a[i] = malloc(8);', '  return a[i];', '}']
    expect(returnsName(out, 1, '*out')).toBe(false)
    expect(returnsName(out, 5, 'a[i]')).toBe(true)
    expect(returnsName(out, 5, 'a')).toBe(true)
  })
})

/* A 2-D heat-diffusion stencil, as a user would write it: N x N doubles, STEPS sweeps of a
   five-point update into a second grid, then a swap. `heat 512 12` is about 16 M accesses;
   `heat 1024 10` about 52 M. `step` is the one small function bench/trace.mjs traces alone. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void step(const double *in, double *out, int n) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
}

__attribute__((noinline)) double corner(const double *g, int n) { return g[n + 1] + g[n * n - n - 2]; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512, steps = argc > 2 ? atoi(argv[2]) : 12;
  double *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b);
  for (int j = 0; j < n; j++) a[j] = b[j] = 100.0;
  for (int s = 0; s < steps; s++) {
    step(a, b, n);
    double *t = a; a = b; b = t;
  }
  printf("%.6f\n", corner(a, n));
  return 0;
}

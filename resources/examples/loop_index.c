/*
 * Loop-index-heavy kernel (Rutar & Hollingsworth 4.3, ART's ti/tj outliers). The indices live
 * in memory (volatile, as unoptimized code keeps them on the stack), so every line of the
 * inner loop reads ti along with its array: the index loads are frequent but always hit.
 * A raw split of each line's misses gives ti half of them; loop compensation hands them back
 * to the arrays. Exact misses: fl_layer 8 per 8 iterations, Y 4, tds 2, bus 1.
 */
#include <stdio.h>

#define M 20000
#define REPS 4

double fl_layer[M * 8], Y[M * 4], tds[M * 2], bus[M];
volatile long ti, tj;

double kernel(void) {
  double a = 0, b = 0, c = 0, d = 0;
  for (tj = 0; tj < REPS; tj++) {
    for (ti = 0; ti < M; ti++) {
      a += fl_layer[ti * 8];
      b += Y[ti * 4];
      c += tds[ti * 2];
      d += bus[ti];
    }
  }
  return a + b + c + d;
}

int main(void) {
  for (long i = 0; i < M; i++) bus[i] = (double)i;
  printf("%f\n", kernel());
  return 0;
}

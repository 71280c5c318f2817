/*
 * Seven arrays with known, distinct miss shares (the tomcatv pattern of Buck & Hollingsworth,
 * Table 1). One loop reads each array with its own stride: with 64-byte lines, an array read
 * every s doubles misses s times in 8 iterations, so the shares are 8:6:5:4:3:2:1 out of 29
 * (27.6%, 20.7%, 17.2%, 13.8%, 10.3%, 6.9%, 3.4%). The misses repeat with a period of 29:
 * sampling every 29*k-th miss always lands on the same array (Buck 3.1's aliasing).
 */
#include <stdio.h>

#define L 100000

double RX[L * 8], RY[L * 6], AA[L * 5], DD[L * 4], X[L * 3], Y[L * 2], D[L];

double sweep(void) {
  double s = 0;
  for (long i = 0; i < L; i++)
    s += RX[i * 8] + RY[i * 6] + AA[i * 5] + DD[i * 4] + X[i * 3] + Y[i * 2] + D[i];
  return s;
}

int main(void) {
  for (long i = 0; i < L; i++) D[i] = (double)i;
  printf("%f\n", sweep());
  return 0;
}

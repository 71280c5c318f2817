/* METRIC section 10.3: conflict misses.
 * Three arrays of 8192 doubles (64 KiB each) laid out back to back, so
 * A[i], B[i] and C[i] map to the same set of a 128 KiB 2-way cache with
 * 128-byte lines: three lines fight for two ways and every read misses.
 */
#include <stdio.h>
#define MATDIM (8192)

/* conflict_padded.c sets PAD to 128 doubles (1 KiB) */
#ifndef PAD
#define PAD 0
#endif

double A[MATDIM + PAD], B[MATDIM + PAD], C[MATDIM + PAD];

static void fill(void)
{
    for (int i = 0; i < MATDIM; i++) {
        A[i] = i;
        B[i] = 2.0 * i;
        C[i] = 0.5 * i;
    }
}

double sumfunc(double S1[], double S2[], double S3[], int size)
{
    int i;
    double sum = 0.0;
    for (i = 0; i < size; i++) {
        sum += S1[i] + S2[i] + S3[i];
    }
    return sum;
}

int main(void)
{
    fill();
    double result = sumfunc(A, B, C, MATDIM);
    printf("sum = %.1f\n", result);
    return 0;
}

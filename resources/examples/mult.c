/* METRIC section 10.2: A[i][j] = A[i][j] * B[j][i] over 1000x1000 doubles.
 * A is walked along rows (stride 8), B down columns (stride 8000 bytes),
 * so every read of B touches a new cache line.
 * Build: cc -g -O1 mult.c -o mult
 */
#include <stdio.h>

#define MATDIM 1000

double A[MATDIM][MATDIM], B[MATDIM][MATDIM];

static void init(void)
{
    for (int i = 0; i < MATDIM; i++)
        for (int j = 0; j < MATDIM; j++) {
            A[i][j] = 1.0 + (i + j) % 7;
            B[i][j] = 1.0 / (1 + (i * j) % 5);
        }
}

void do_mult(void)
{
    int i, j;
    for (i = 0; i < MATDIM; i++)
        for (j = 0; j < MATDIM; j++) {
            A[i][j] = A[i][j] * B[j][i];
        }
}

int main(void)
{
    init();
    do_mult();
    printf("A[7][3] = %f\n", A[7][3]);
    return 0;
}

/* Blocked (tiled) 128x128 matrix multiply, C += A * B, in 32x32 tiles.
 * Every reference walks a regular loop nest: the trace is a handful of PRSDs.
 * Build: cc -g -O1 blocked.c -o blocked
 */
#include <stdio.h>

#define N 128
#define TILE 32

double A[N][N], B[N][N], C[N][N];

static void init(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (i + j) % 5;
            B[i][j] = (i * j) % 3;
            C[i][j] = 0.0;
        }
}

void blocked_mult(void)
{
    for (int ii = 0; ii < N; ii += TILE)
        for (int kk = 0; kk < N; kk += TILE)
            for (int jj = 0; jj < N; jj += TILE)
                for (int i = ii; i < ii + TILE; i++)
                    for (int k = kk; k < kk + TILE; k++) {
                        double a = A[i][k];
                        for (int j = jj; j < jj + TILE; j++)
                            C[i][j] += a * B[k][j];
                    }
}

int main(void)
{
    init();
    blocked_mult();
    printf("C[5][7] = %f\n", C[5][7]);
    return 0;
}

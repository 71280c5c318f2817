/* METRIC section 10.1: cache reuse hinting.
 * do_sum streams A and B (80 KiB each) every timestep; do_mult makes 1500
 * indirect, effectively random reads of C and D (8 MiB each) through ind[],
 * which bring in lines that are never reused and evict A and B.
 * Build: cc -g -O1 reuse.c -o reuse
 */
#include <stdio.h>

#define MATDIM 10240
#define MAT2 (1 << 20)
#define NIND 1500
#define TIMESTEPS 10

double A[MATDIM], B[MATDIM];
double C[MAT2], D[MAT2];
int ind[NIND];

static void init(void)
{
    unsigned int seed = 12345u;
    for (int j = 0; j < NIND; j++) {
        seed = seed * 1103515245u + 12345u;
        ind[j] = (int)((seed >> 4) % MAT2);
    }
    for (int i = 0; i < MATDIM; i++) {
        A[i] = i;
        B[i] = 1.0;
    }
}

void do_sum(void)
{
    int i;
    for (i = 0; i < MATDIM; i++)
        A[i] = A[i] + B[i];
}

void do_mult(void)
{
    int j;
    for (j = 0; j < NIND; j++)
        C[ind[j]] *= D[ind[j]];
}

int main(void)
{
    init();
    for (int i = 0; i < TIMESTEPS; i++) {
        do_sum();
        do_mult();
    }
    printf("A[1] = %f, C[ind[0]] = %f\n", A[1], C[ind[0]]);
    return 0;
}

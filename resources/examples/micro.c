/* SIGMA section 4.1.1 validation micro-benchmarks over B, 1M doubles (8 MiB),
 * and I, 1K random indices:
 *   sequential_stores:     B[k] = c for every k        -> 64K store misses, 2K TLB misses
 *                                                         (128-byte lines, 4 KiB pages)
 *   random_loads:          s += B[I[k]], k < 1024      -> about 1K L1 and 1K TLB misses
 *   multiple_random_loads: s += B[I[k] + 32*j], j < 16 -> about 16K L1 and 2K TLB misses
 * Build: cc -g -O1 micro.c -o micro
 */
#include <stdio.h>

#define N (1 << 20)
#define NI 1024

double B[N];
int I[NI];

void sequential_stores(double c)
{
    for (int k = 0; k < N; k++)
        B[k] = c;
}

double random_loads(void)
{
    double s = 0.0;
    for (int k = 0; k < NI; k++)
        s = s + B[I[k]];
    return s;
}

double multiple_random_loads(void)
{
    double s = 0.0;
    for (int k = 0; k < NI; k++)
        for (int j = 0; j < 16; j++)
            s = s + B[I[k] + 32 * j];
    return s;
}

int main(void)
{
    unsigned int seed = 2024u;
    for (int k = 0; k < NI; k++) {
        seed = seed * 1664525u + 1013904223u;
        /* leave room for the 16 x 32-element reach of multiple_random_loads */
        I[k] = (int)((seed >> 8) % (N - 16 * 32));
    }
    sequential_stores(1.5);
    double r = random_loads();
    double m = multiple_random_loads();
    printf("%f %f\n", r, m);
    return 0;
}

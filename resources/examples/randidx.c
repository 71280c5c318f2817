/* Random-index gather: y[i] = x[idx[i]] with idx a pseudo-random permutation-like table.
 * idx[] and y[] are walked with stride 4 and 8; x[] is read at random, the irregular
 * residue a trace compressor cannot predict.
 * Build: cc -g -O1 randidx.c -o randidx
 */
#include <stdio.h>

#define NX (1 << 20)
#define NI (1 << 18)

double x[NX], y[NI];
int idx[NI];

static void init(void)
{
    unsigned int seed = 2463534242u;
    for (int i = 0; i < NI; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        idx[i] = (int)(seed % NX);
    }
    for (int i = 0; i < NX; i++)
        x[i] = i * 0.5;
}

void gather(void)
{
    for (int i = 0; i < NI; i++)
        y[i] = x[idx[i]];
}

int main(void)
{
    init();
    gather();
    printf("y[3] = %f\n", y[3]);
    return 0;
}

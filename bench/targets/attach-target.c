/* bench/attach.mjs's target: sums three 4096-double arrays in sumfunc() as fast as it
 * can, forever, and every 100 ms appends "<ms since start> <calls so far>" to OUTFILE,
 * so its speed can be read from outside whatever traces it.
 *   attach-target OUTFILE */
#include <stdio.h>
#include <time.h>

#define N 4096
double A[N], B[N], C[N];

__attribute__((noinline)) double sumfunc(const double *s1, const double *s2, const double *s3, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += s1[i] + s2[i] + s3[i];
    return sum;
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

int main(int argc, char **argv)
{
    FILE *out = fopen(argc > 1 ? argv[1] : "/dev/null", "w");
    if (!out)
        return 1;
    for (int i = 0; i < N; i++) {
        A[i] = i;
        B[i] = 2.0 * i;
        C[i] = 0.5 * i;
    }
    volatile double total = 0.0;
    long start = now_ms(), next = start + 100, calls = 0;
    for (;;) {
        total += sumfunc(A, B, C, N);
        calls++;
        if (now_ms() >= next) { /* ~20 ns against a call's ~4 us */
            fprintf(out, "%ld %ld\n", now_ms() - start, calls);
            fflush(out);
            next += 100;
        }
    }
}

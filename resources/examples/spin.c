/* A long-running process to attach to (Frida backend, "Attach..."): it calls sumfunc
 * over three 4096-double arrays again and again, sleeping 1 ms every 64 calls so it
 * does not hog a core. Runs until killed, or for ROUNDS calls when given one.
 *   spin [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define N 4096

double A[N], B[N], C[N];

double sumfunc(double S1[], double S2[], double S3[], int size)
{
    double sum = 0.0;
    for (int i = 0; i < size; i++)
        sum += S1[i] + S2[i] + S3[i];
    return sum;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : -1;
    for (int i = 0; i < N; i++) {
        A[i] = i;
        B[i] = 2.0 * i;
        C[i] = 0.5 * i;
    }
    printf("spin: pid %d\n", (int) getpid());
    fflush(stdout);
    volatile double total = 0;
    for (long r = 0; rounds < 0 || r < rounds; r++) {
        total += sumfunc(A, B, C, N);
        if (r % 64 == 63) usleep(1000);
    }
    printf("total = %.1f\n", total);
    return 0;
}

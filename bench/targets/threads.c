/*
 * bench/cores.mjs's program: T threads (argv[1], default 4) each sweep their own quarter of a
 * shared array of doubles R times (argv[2], default 20), counting rows done in adjacent
 * elements of one array (false sharing, as issue 50's test programs). About 2.7 M accesses per
 * thread and sweep count of 20 at the default sizes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define MAXT 16

static double grid[N][N / 8];
static struct { volatile long rows; } done[MAXT];
static int threads = 4, rounds = 20;

static void *sweep(void *arg) {
  long id = (long)arg;
  int from = id * N / threads, to = (id + 1) * N / threads;
  double sum = 0;
  for (int r = 0; r < rounds; r++)
    for (int i = from; i < to; i++) {
      for (int j = 0; j < N / 8; j++) sum += grid[i][j];
      done[id].rows++;
    }
  return (void *)(long)(sum > 0);
}

int main(int argc, char **argv) {
  if (argc > 1) threads = atoi(argv[1]);
  if (argc > 2) rounds = atoi(argv[2]);
  if (threads < 1 || threads > MAXT) return 2;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N / 8; j++) grid[i][j] = i + j;
  pthread_t t[MAXT];
  for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, sweep, (void *)i);
  long rows = 0;
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < threads; i++) rows += done[i].rows;
  printf("%ld\n", rows);
  return 0;
}

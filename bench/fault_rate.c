/*
 * fault_rate: an independent check of `pretouch calibrate`, in C, of the same shape.
 *
 * T threads write one byte in each 4 KiB page of ONE shared anonymous mapping, each
 * thread its own slice; the mapping is zapped with MADV_DONTNEED between passes
 * (untimed) and is MADV_NOHUGEPAGE, so every pass takes every 4 KiB fault again.
 * One uncounted pass, then P counted passes; a pass is timed (CLOCK_MONOTONIC) from
 * the release of all threads to the last one done. Prints the median, min and max
 * faults per second of wall time, the minor faults the kernel counted per pass, and
 * the pages written per second of the workers' own CPU time (CLOCK_THREAD_CPUTIME_ID),
 * which time taken by other work on the machine does not lower.
 *
 * usage: fault_rate THREADS SIZE_MIB PASSES
 * build: bench/fault_rate.sh (cc -O2 -pthread)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t start_barrier, done_barrier;
static char *map;
static size_t page, pages;
static int threads, rounds;
static long long thread_faults[1024];
static long long thread_cpu_ns[1024];

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long thread_cpu_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long minflt_thread(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_minflt;
}

static void *worker(void *arg) {
    long i = (long)arg;
    size_t first = pages * i / threads, last = pages * (i + 1) / threads;
    for (int r = 0; r < rounds; r++) {
        pthread_barrier_wait(&start_barrier);
        long long f0 = minflt_thread(), c0 = thread_cpu_now_ns();
        for (size_t p = first; p < last; p++)
            ((volatile char *)map)[p * page] = 1;
        if (r > 0) {
            thread_faults[i] += minflt_thread() - f0;
            thread_cpu_ns[i] += thread_cpu_now_ns() - c0;
        }
        pthread_barrier_wait(&done_barrier);
    }
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s THREADS SIZE_MIB PASSES\n", argv[0]);
        return 2;
    }
    threads = atoi(argv[1]);
    size_t size = (size_t)atol(argv[2]) << 20;
    int passes = atoi(argv[3]);
    if (threads < 1 || threads > 1024 || passes < 1 || size == 0) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    rounds = passes + 1;
    page = (size_t)sysconf(_SC_PAGESIZE);
    pages = size / page;
    map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED || madvise(map, size, MADV_NOHUGEPAGE) != 0) {
        perror("mmap/madvise");
        return 1;
    }
    pthread_barrier_init(&start_barrier, NULL, threads + 1);
    pthread_barrier_init(&done_barrier, NULL, threads + 1);
    pthread_t *tids = calloc(threads, sizeof *tids);
    for (long i = 0; i < threads; i++)
        pthread_create(&tids[i], NULL, worker, (void *)i);
    double *rates = calloc(passes, sizeof *rates);
    for (int r = 0; r < rounds; r++) {
        long long t0 = now_ns();
        pthread_barrier_wait(&start_barrier);
        pthread_barrier_wait(&done_barrier);
        long long t = now_ns() - t0;
        if (r > 0)
            rates[r - 1] = (double)pages / ((double)t / 1e9);
        if (madvise(map, size, MADV_DONTNEED) != 0) {
            perror("madvise(MADV_DONTNEED)");
            return 1;
        }
    }
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    long long faults = 0, cpu_ns = 0;
    for (int i = 0; i < threads; i++) {
        faults += thread_faults[i];
        cpu_ns += thread_cpu_ns[i];
    }
    qsort(rates, passes, sizeof *rates, cmp);
    double median = passes % 2 ? rates[passes / 2] : (rates[passes / 2 - 1] + rates[passes / 2]) / 2;
    double per_cpu_s = (double)pages * passes / ((double)cpu_ns / 1e9);
    printf("threads=%d pages=%zu passes=%d median_faults_per_s=%.0f min=%.0f max=%.0f faults_per_pass=%lld faults_per_cpu_s=%.0f\n",
           threads, pages, passes, median, rates[0], rates[passes - 1], faults / passes, per_cpu_s);
    return 0;
}

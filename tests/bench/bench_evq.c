/*
 * bench_evq — what one event costs the future-event list alone, at the sizes
 * the engine meets: an M/M/c's dozen pending events up to a fleet's 100,000.
 *
 * The hold model (Jones, CACM 29(4), 1986): n events queued, then each step
 * pops the earliest and pushes it back at its time plus an exponential
 * distance of mean 10 ms, so the queue stays at n events and its density at
 * n / 10 ms.  The distances are drawn before the clock starts (a table of
 * 2^20 from one of the engine's streams, reused in turn), so the figure is
 * the queue's, not a sampler's.
 * Prints ns per hold (one pop and one push) and the shape the queue took
 * (sorted array, or calendar with its bucket count): the sizes straddle
 * FS_EVQ_SORTED_MAX, where the queue turns from one into the other.  A
 * measurement, not a test: it fails only when out of memory.
 *
 *   bench_evq              every size, 20 million holds each
 *   bench_evq N HOLDS      one size
 */
#include <gsl/gsl_randist.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "event.h"
#include "rng.h"

#define TABLE (1u << 20)
#define MEAN_S 0.010

static int hold(size_t n, long holds, const double *distance)
{
    fs_evq q;
    if (fs_evq_init(&q) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (fs_evq_push(&q, distance[i % TABLE], 1, 0, (uint32_t)i, 0) != 0) {
            fs_evq_fini(&q);
            return -1;
        }
    double checksum = 0, t0 = bench_now_s();
    for (long k = 0; k < holds; k++) {
        fs_event ev;
        fs_evq_pop(&q, &ev);
        checksum += ev.time;
        if (fs_evq_push(&q, ev.time + distance[(size_t)k & (TABLE - 1)], 1, 0, ev.arg, 0) != 0) {
            fs_evq_fini(&q);
            return -1;
        }
    }
    double wall = bench_now_s() - t0;
    if (q.calendar)
        printf("evq hold: %7zu events: %6.1f ns per pop and push (calendar, %u buckets; checksum %.6g)\n", n,
               wall / (double)holds * 1e9, q.nbuckets, checksum);
    else
        printf("evq hold: %7zu events: %6.1f ns per pop and push (sorted array; checksum %.6g)\n", n,
               wall / (double)holds * 1e9, checksum);
    fflush(stdout);
    fs_evq_fini(&q);
    return 0;
}

int main(int argc, char **argv)
{
    double *distance = malloc(TABLE * sizeof *distance);
    gsl_rng *rng = fs_rng_create(18, 0, "bench/evq");
    if (!distance || !rng) {
        free(distance);
        fs_rng_destroy(rng);
        return 1;
    }
    for (size_t i = 0; i < TABLE; i++)
        distance[i] = gsl_ran_exponential(rng, MEAN_S);
    fs_rng_destroy(rng);
    int rc = 0;
    if (argc == 3) {
        rc = hold(strtoul(argv[1], NULL, 10), strtol(argv[2], NULL, 10), distance);
    } else {
        const size_t sizes[] = {11, 24, 48, 49, 100, 700, 9000, 100000};
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes && rc == 0; i++)
            rc = hold(sizes[i], 20000000, distance);
    }
    free(distance);
    return rc ? 1 : 0;
}

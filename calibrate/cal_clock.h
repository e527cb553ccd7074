/*
 * cal_clock — the one clock fleetsim-calibrate reads: CLOCK_MONOTONIC in
 * seconds, for the samples, the steps' durations and the children's deadlines.
 *
 * Header only, and inline: the call sits inside every measured interval, and
 * a call into another object file would add its own cost to each sample.
 */
#ifndef FS_CALIB_CLOCK_H
#define FS_CALIB_CLOCK_H

#include <time.h>

static inline double cal_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif

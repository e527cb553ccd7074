/*
 * pool — a pool of whole GPUs during one replication.
 *
 * Tracks how many of the pool's GPUs are busy (serving at least one request)
 * and how many are idle, each as a time-weighted level, so busy and idle
 * GPU-seconds are integrated independently and their sum can be checked
 * against the provisioned GPU-seconds (conservation).  Services tell the pool
 * when one of their GPUs turns busy or idle.
 *
 * Ownership: fs_pool is caller-owned (init/fini); it owns its window rows
 * until fs_pool_finish hands them to the replication's result.
 */
#ifndef FS_POOL_H
#define FS_POOL_H

#include <stddef.h>

#include "level.h"
#include "results.h"
#include "scenario.h"

typedef struct fs_pool {
    const fs_pool_spec *spec;
    fs_level busy;          /* GPUs serving at least one request */
    fs_level idle;          /* the rest */
    double window_start;
    fs_level window_busy;   /* busy GPUs, integrated over the current window */
    fs_pool_window *windows;
    size_t n_windows, cap_windows;
} fs_pool;

void fs_pool_init(fs_pool *p, const fs_pool_spec *spec);
void fs_pool_fini(fs_pool *p);

/* One of the pool's GPUs turned busy (+1) or idle (-1) at now. */
static inline void fs_pool_gpu_busy(fs_pool *p, double now, int delta)
{
    fs_level_add(&p->busy, now, delta);
    fs_level_add(&p->idle, now, -delta);
    fs_level_add(&p->window_busy, now, delta);
}

/* Starts measuring at now (the warm-up instant): integrals restart. */
void fs_pool_start_measuring(fs_pool *p, double now);

/* Closes the current time-series window at now.  0 or ENOMEM. */
int fs_pool_close_window(fs_pool *p, double now);

/* Writes the measured figures into out and moves the window rows there. */
void fs_pool_finish(fs_pool *p, double now, fs_pool_rep *out);

#endif

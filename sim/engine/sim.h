/*
 * sim — the simulation engine: a clock, the future-event list and the loop.
 *
 * The engine knows nothing about GPUs or services.  Models register handlers
 * (a function and a context); registration returns a kind, and events of that
 * kind are dispatched to that handler.  One model instance (a service, a pool)
 * registers its own kinds, so the handler finds its state through ctx without
 * any lookup.
 *
 * A handler may schedule further events (never in the past) and may call
 * fs_sim_fail to stop the run with an error.  It must not register handlers:
 * registration may move the handler table, which fs_sim_run reads once at
 * its start (it asserts after each dispatch that the table has not moved).
 *
 * Ownership: fs_sim is caller-owned (init/fini); it owns the event list and
 * the handler table, never the contexts.
 */
#ifndef FS_SIM_H
#define FS_SIM_H

#include <assert.h>
#include <stdint.h>

#include "event.h"
#include "hist.h"

typedef struct fs_sim fs_sim;
typedef void (*fs_handler_fn)(fs_sim *sim, const fs_event *ev, void *ctx);

typedef struct fs_handler {
    fs_handler_fn fn;
    void *ctx;
} fs_handler;

/* A watcher called by fs_sim_run every `every` events, between two events:
 * progress reports and event limits live with the caller, and the watcher
 * stops the run with fs_sim_fail. */
typedef void (*fs_watch_fn)(fs_sim *sim, void *ctx);

struct fs_sim {
    double now;            /* the clock: time of the event being handled */
    fs_evq queue;
    fs_handler *handlers;
    size_t n_handlers, cap_handlers;
    uint64_t events;       /* events handled so far */
    int failed;            /* first failure code (errno-style), 0 while fine */
    char failure[256];     /* what failed, for the caller's error message */
    fs_watch_fn watch;     /* NULL: none (fs_sim_watch) */
    void *watch_ctx;
    uint64_t watch_every;
    /* A histogram any handler may load and read within one event: the
     * scratch every tally of the run is read through (tally.h), one at a
     * time, so the run keeps one set of dense counters for them all. */
    fs_hist scratch;
};

int fs_sim_init(fs_sim *sim);  /* 0 or ENOMEM */
void fs_sim_fini(fs_sim *sim);

/* Registers a handler; returns its kind (>= 0) or -1 when out of memory. */
int64_t fs_sim_register(fs_sim *sim, fs_handler_fn fn, void *ctx);

/* fs_sim_schedule's rare failure, out of line (sim.c). */
void fs__sim_no_memory(fs_sim *sim);

/* Schedules an event of `kind` at `time` (>= now).  On ENOMEM the run is
 * marked failed and stops at the next step.  Inline: every event. */
static inline void fs_sim_schedule(fs_sim *sim, double time, uint8_t priority, uint32_t kind, uint32_t arg,
                                   double data)
{
    assert(kind < sim->n_handlers);
    assert(time >= sim->now);
    if (__builtin_expect(fs_evq_push(&sim->queue, time, priority, kind, arg, data) != 0, 0))
        fs__sim_no_memory(sim);
}

/* Handles events in order while the earliest is at or before `until` and the
 * run has not failed; then, if the run has not failed and `until` is finite
 * and later than now, sets now = until.  Returns 0 or the failure code. */
int fs_sim_run(fs_sim *sim, double until);

/* Calls fn(sim, ctx) after every `every` (>= 1) events that fs_sim_run
 * handles, counted across calls; fn NULL removes the watcher.  sim->events
 * is up to date when fn runs. */
void fs_sim_watch(fs_sim *sim, uint64_t every, fs_watch_fn fn, void *ctx);

/* Marks the run failed with a message; the loop stops after this event. */
void fs_sim_fail(fs_sim *sim, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

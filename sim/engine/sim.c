#include "sim.h"

#include "grow.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int fs_sim_init(fs_sim *sim)
{
    *sim = (fs_sim){0};
    fs_hist_init(&sim->scratch);
    return fs_evq_init(&sim->queue);
}

void fs_sim_fini(fs_sim *sim)
{
    fs_evq_fini(&sim->queue);
    fs_hist_fini(&sim->scratch);
    free(sim->handlers);
    sim->handlers = NULL;
    sim->n_handlers = sim->cap_handlers = 0;
}

int64_t fs_sim_register(fs_sim *sim, fs_handler_fn fn, void *ctx)
{
    fs_handler *handlers = fs_grow(sim->handlers, &sim->cap_handlers, sim->n_handlers + 1, sizeof *handlers, 16);
    if (!handlers)
        return -1;
    sim->handlers = handlers;
    sim->handlers[sim->n_handlers] = (fs_handler){fn, ctx};
    return sim->n_handlers++;
}

/* Out of line: the inline schedule's rare failure (sim.h). */
void fs__sim_no_memory(fs_sim *sim)
{
    fs_sim_fail(sim, ENOMEM, "out of memory growing the event list to %zu events", sim->queue.len + 1);
}

int fs_sim_run(fs_sim *sim, double until)
{
    fs_evq *q = &sim->queue;
    const fs_handler *handlers = sim->handlers;
    uint64_t handled = 0;
    /* Events left before the watcher's next call: the loop pays one
     * decrement and one test for it. */
    uint64_t until_watch = sim->watch ? sim->watch_every - sim->events % sim->watch_every : UINT64_MAX;
    fs_event ev;
    /* The hot loop: pop, advance the clock, dispatch.  `handlers` is read
     * once, before the loop: registering during a run could reallocate the
     * table and leave this copy dangling, so it is not allowed, and the
     * assert after each dispatch checks that the table has not moved. */
    while (!sim->failed && fs_evq_pop_until(q, until, &ev)) {
        sim->now = ev.time;
        handlers[ev.kind].fn(sim, &ev, handlers[ev.kind].ctx);
        handled++;
        assert(sim->handlers == handlers);
        if (--until_watch == 0) {
            sim->events += handled;
            handled = 0;
            until_watch = sim->watch_every;
            sim->watch(sim, sim->watch_ctx);
        }
    }
    sim->events += handled;
    if (!sim->failed && isfinite(until) && until > sim->now)
        sim->now = until;
    return sim->failed;
}

void fs_sim_watch(fs_sim *sim, uint64_t every, fs_watch_fn fn, void *ctx)
{
    assert(!fn || every >= 1);
    sim->watch = fn;
    sim->watch_ctx = ctx;
    sim->watch_every = fn ? every : 0;
}

void fs_sim_fail(fs_sim *sim, int code, const char *fmt, ...)
{
    if (sim->failed)
        return;
    sim->failed = code ? code : EINVAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sim->failure, sizeof sim->failure, fmt, ap);
    va_end(ap);
}

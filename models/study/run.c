#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fleet.h"
#include "policy.h"
#include "pool.h"
#include "quota.h"
#include "service.h"
#include "sim.h"
#include "training.h"
#include "windows.h"

/* Everything one replication builds; torn down by fs__replication_fini. */
typedef struct fs__replication {
    const fs_scenario *scenario;
    fs_sim sim;
    fs_pool *pools;
    fs_service *services;
    size_t n_services_ready;
    uint32_t kind_warmup, kind_window;
    size_t n_pools_ready;
    const fs_results *results;
    fs_rep_result *rep;
    fs_fleet fleet;
    bool fleet_ready;
    fs_training training;
    bool training_ready;
    double window_start;  /* start of the open time-series window */
    struct fs__watcher *watcher; /* NULL: nobody watches */
    /* Where closed windows go (NULL: kept in rep); with a sink, the growth
     * fit's points wait in a spool, one segment per service (windows.h). */
    const fs_window_sink *sink;
    fs_spool *growth;
    fs_pool_window *pool_rows; /* the pools' rows of the window closing, for the fleet's headroom */
} fs__replication;

/* A run's watch and where the run stands, for the engine's watcher. */
typedef struct fs__watcher {
    const fs_run_watch *watch;
    uint64_t events_before; /* handled by the replications already finished */
    fs_run_progress progress;
} fs__watcher;

static void fs__on_watch(fs_sim *sim, void *ctx)
{
    fs__watcher *w = ctx;
    uint64_t events = w->events_before + sim->events;
    if (w->watch->max_events && events > w->watch->max_events) {
        fs_sim_fail(sim, ECANCELED, "stopped after %llu events, more than the limit of %llu (--max-events)",
                    (unsigned long long)events, (unsigned long long)w->watch->max_events);
        return;
    }
    if (w->watch->progress) {
        w->progress.now_s = sim->now;
        w->progress.events = events;
        w->watch->progress(w->watch->ctx, &w->progress);
    }
}

static void fs__start_measuring(fs__replication *run, double now)
{
    run->window_start = now;
    for (size_t i = 0; i < run->scenario->n_pools; i++)
        fs_pool_start_measuring(&run->pools[i], now);
    for (size_t i = 0; i < run->scenario->n_services; i++)
        fs_service_start_measuring(&run->services[i], now);
    fs_training_start_measuring(&run->training, now);
    if (run->fleet.quota)
        fs_quota_start_measuring(run->fleet.quota, now);
}

/* The fleet calls holders back through these: owner is a service index or a
 * training job id. */
static void fs__service_ready(void *ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit, double now)
{
    (void)pool;
    fs__replication *run = ctx;
    fs_service_replica_ready(&run->services[owner], slot, unit, now);
}

static void fs__service_evicted(void *ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit,
                                double now)
{
    (void)pool, (void)unit;
    fs__replication *run = ctx;
    fs_service_replica_evicted(&run->services[owner], slot, now);
}

static void fs__training_ready(void *ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit,
                               double now)
{
    fs__replication *run = ctx;
    fs_training_member_ready(&run->training, owner, slot, pool, unit, now);
}

static void fs__training_granted(void *ctx, uint32_t owner, double now)
{
    fs__replication *run = ctx;
    fs_training_admitted(&run->training, owner, now);
}

static void fs__training_evicted(void *ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit,
                                 double now)
{
    (void)slot, (void)pool, (void)unit;
    fs__replication *run = ctx;
    fs_training_member_evicted(&run->training, owner, now);
}

static void fs__service_moved(void *ctx, uint32_t owner, uint32_t slot, size_t pool, size_t unit, double now)
{
    fs__replication *run = ctx;
    fs_service_replica_move(&run->services[owner], slot, pool, unit, now);
}

/* A deploy step's rollout, from training to its service and back. */
static int fs__deploy(void *ctx, size_t service, uint32_t stream, uint32_t cycle, uint32_t max_surge, double now)
{
    fs__replication *run = ctx;
    return fs_service_deploy(&run->services[service], stream, cycle, max_surge, now);
}

static void fs__rollout_done(void *ctx, uint32_t stream, uint32_t cycle, double submitted, double now)
{
    fs__replication *run = ctx;
    fs_training_rollout_done(&run->training, stream, cycle, submitted, now);
}

static const fs_holder_ops fs__service_holder = {fs__service_ready, fs__service_evicted, NULL, fs__service_moved};
static const fs_holder_ops fs__training_holder = {fs__training_ready, fs__training_evicted, fs__training_granted, NULL};

static void fs__on_warmup(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev;
    fs__start_measuring(ctx, sim->now);
}

/* Closes every pool's and service's window at now: the figures taken from
 * windows as they close, then the row to the sink or kept.  0 or an errno
 * value (ENOMEM keeping a row, or the sink's). */
static int fs__close_windows(fs__replication *run, double now)
{
    const fs_window_sink *sink = run->sink;
    int rc = 0;
    for (size_t i = 0; i < run->scenario->n_pools && rc == 0; i++) {
        fs_pool_window *row = &run->pool_rows[i];
        fs_pool_close_window(&run->pools[i], now, row);
        fs_windows_pool_seen(&run->rep->pools[i], row);
        rc = !sink ? fs_windows_keep_pool(&run->rep->pools[i], row)
             : sink->pool_window ? sink->pool_window(sink->ctx, i, row) : 0;
    }
    if (rc == 0)
        fs_windows_fleet_seen(run->rep, run->pool_rows, run->scenario->n_pools);
    for (size_t i = 0; i < run->scenario->n_services && rc == 0; i++) {
        fs_service_window row;
        fs_service_close_window(&run->services[i], now, &row);
        fs_service_rep *srep = &run->rep->services[i];
        fs_windows_service_seen(srep, &row);
        if (run->growth)
            rc = fs_spool_put(run->growth, i, &(fs_windows_point){row.end_s / 3600.0, (double)row.queue_end});
        if (rc == 0)
            rc = !sink ? fs_windows_keep_service(srep, &row)
                 : sink->service_window ? sink->service_window(sink->ctx, i, &row) : 0;
    }
    run->window_start = now;
    return rc;
}

static int fs__on_breach(void *ctx, size_t service, double window_start_s)
{
    fs__replication *run = ctx;
    const fs_window_sink *sink = run->sink;
    return !sink ? fs_windows_keep_breach(&run->rep->services[service], window_start_s)
           : sink->slo_breach ? sink->slo_breach(sink->ctx, service, window_start_s) : 0;
}

static void fs__on_window(fs_sim *sim, const fs_event *ev, void *ctx)
{
    (void)ev;
    fs__replication *run = ctx;
    int rc = fs__close_windows(run, sim->now);
    if (rc != 0) {
        fs_sim_fail(sim, rc, "time-series windows: %s", strerror(rc));
        return;
    }
    double next = sim->now + run->scenario->window_s;
    if (next <= run->scenario->horizon_s)
        fs_sim_schedule(sim, next, 0, run->kind_window, 0, 0);
}

static void fs__replication_fini(fs__replication *run)
{
    if (run->training_ready)
        fs_training_fini(&run->training);
    for (size_t i = 0; i < run->n_services_ready; i++)
        fs_service_fini(&run->services[i]);
    for (size_t i = 0; i < run->n_pools_ready; i++)
        fs_pool_fini(&run->pools[i]);
    if (run->fleet_ready)
        fs_fleet_fini(&run->fleet);
    free(run->services);
    free(run->pools);
    free(run->pool_rows);
    fs_spool_destroy(run->growth);
    fs_sim_fini(&run->sim);
}

/* Charges a breach window during which service i's scale-up waited to the
 * tenants holding units of its pool, in proportion to the units they hold
 * (its own tenant excluded): the externality of seed 003. */
static void fs__charge_blocked(void *ctx, size_t service, double minutes)
{
    fs__replication *run = ctx;
    const fs_scenario *s = run->scenario;
    size_t pool = s->services[service].pool;
    const char *own = s->services[service].tenant;
    const fs_fleet *f = &run->fleet;
    size_t n_units = f->placement->pools[pool].n_units_max, held = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t u = 0; u < n_units; u++) {
            const fs_unit_rt *unit = &f->units[pool][u];
            if (unit->state != FS_UNIT_HELD && unit->state != FS_UNIT_WARMING)
                continue;
            const char *tenant = unit->kind == FS_HOLDER_SERVICE
                                     ? s->services[unit->owner].tenant
                                     : s->training[run->training.jobs[unit->owner].stream].tenant;
            if (strcmp(tenant, own) == 0)
                continue;
            if (pass == 0) {
                held++;
            } else {
                size_t t = fs_results_tenant(run->results, tenant);
                if (t != SIZE_MAX)
                    run->rep->blocked_minutes[t] += minutes / (double)held;
            }
        }
        if (held == 0)
            return;
    }
}

static int fs__run_replication(const fs_results *results, const fs_scenario *s,
                               const fs_placement *placement, uint32_t replication, fs_rep_result *rep,
                               fs__watcher *watcher, const fs_window_sink *sink, fs_error *err)
{
    fs__replication run = {.scenario = s, .results = results, .rep = rep, .watcher = watcher, .sink = sink};
    int rc = FS_OK;
    if (fs_sim_init(&run.sim) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory creating the engine");
    run.pools = calloc(s->n_pools, sizeof *run.pools);
    run.pool_rows = calloc(s->n_pools ? s->n_pools : 1, sizeof *run.pool_rows);
    run.services = calloc(s->n_services, sizeof *run.services);
    int64_t k_warm = fs_sim_register(&run.sim, fs__on_warmup, &run);
    int64_t k_win = fs_sim_register(&run.sim, fs__on_window, &run);
    if (!run.pools || !run.pool_rows || !run.services || k_warm < 0 || k_win < 0) {
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory building replication %u", replication);
        goto out;
    }
    int sprc = sink && s->n_services ? fs_spool_create(sink->scratch_dir, s->n_services,
                                                       fs_windows_bound(s, s->window_s), sizeof(fs_windows_point),
                                                       &run.growth)
                                     : 0;
    if (sprc != 0) {
        rc = fs_error_set(err, FS_ERR_RUNTIME, "replication %u: a scratch file for the queue growth fit in %s: %s",
                          replication, sink->scratch_dir ? sink->scratch_dir : "$TMPDIR", strerror(sprc));
        goto out;
    }
    run.kind_warmup = (uint32_t)k_warm;
    run.kind_window = (uint32_t)k_win;
    for (size_t i = 0; i < s->n_pools; i++) {
        if (fs_pool_init(&run.pools[i], &s->pools[i], &placement->pools[i]) != 0) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory building replication %u", replication);
            goto out;
        }
        run.n_pools_ready++;
    }
    if (fs_fleet_init(&run.fleet, s, placement, fs_policy_for(s->policy_kind), &run.sim, run.pools,
                      s->seed, replication) != 0) {
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory building replication %u", replication);
        goto out;
    }
    run.fleet_ready = true;
    fs_fleet_set_holder(&run.fleet, FS_HOLDER_SERVICE, &fs__service_holder, &run);
    fs_fleet_set_holder(&run.fleet, FS_HOLDER_TRAINING, &fs__training_holder, &run);
    for (size_t i = 0; i < s->n_services; i++) {
        rc = fs_service_init(&run.services[i], i, s, placement, &run.fleet, &run.sim,
                             &run.pools[s->services[i].pool], replication, &rep->services[i], err);
        if (rc != FS_OK)
            goto out;
        run.services[i].on_blocked_breach = fs__charge_blocked;
        run.services[i].blocked_ctx = &run;
        run.services[i].on_breach = fs__on_breach;
        run.services[i].breach_ctx = &run;
        run.services[i].on_rollout_done = fs__rollout_done;
        run.services[i].rollout_ctx = &run;
        run.n_services_ready++;
    }
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_service_spec *spec = &s->services[i];
        if (spec->spills && fs_service_link_spill(&run.services[i], &run.services[spec->spill_to]) != 0) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory building replication %u", replication);
            goto out;
        }
    }
    rc = fs_training_init(&run.training, s, &run.fleet, run.pools, &run.sim, replication,
                          rep->training, err);
    if (rc != FS_OK)
        goto out;
    run.training_ready = true;
    run.training.deploy = fs__deploy;
    run.training.deploy_ctx = &run;
    /* Measuring starts at the warm-up instant; windows tick from there.  Ticks
     * have priority 0, so at equal times they run before request events. */
    if (s->warmup_s > 0)
        fs_sim_schedule(&run.sim, s->warmup_s, 0, run.kind_warmup, 0, 0);
    else
        fs__start_measuring(&run, 0);
    if (s->warmup_s + s->window_s <= s->horizon_s)
        fs_sim_schedule(&run.sim, s->warmup_s + s->window_s, 0, run.kind_window, 0, 0);

    if (watcher) {
        watcher->progress.horizon_s = s->horizon_s;
        fs_sim_watch(&run.sim, FS_RUN_WATCH_EVERY, fs__on_watch, watcher);
    }
    if (fs_sim_run(&run.sim, s->horizon_s) != 0) {
        /* EILSEQ: a trace row that is bad input (the message names file:line);
         * ECANCELED: the watch's event limit, which says all there is to say. */
        rc = run.sim.failed == EILSEQ       ? fs_error_set(err, FS_ERR_INPUT, "%s", run.sim.failure)
             : run.sim.failed == ECANCELED ? fs_error_set(err, FS_ERR_RUNTIME, "%s", run.sim.failure)
                                           : fs_error_set(err, FS_ERR_RUNTIME, "replication %u: %s", replication,
                                                          run.sim.failure);
        goto out;
    }
    /* A last, shorter window when the horizon is not a whole number of windows. */
    int wrc = s->horizon_s > run.window_start + 1e-9 ? fs__close_windows(&run, s->horizon_s) : 0;
    for (size_t i = 0; i < s->n_services && wrc == 0; i++) {
        fs_service_finish(&run.services[i], s->horizon_s);
        wrc = fs_windows_growth(&rep->services[i], run.growth, i);
    }
    if (wrc != 0) {
        rc = fs_error_set(err, FS_ERR_RUNTIME, "replication %u: time-series windows: %s", replication, strerror(wrc));
        goto out;
    }
    for (size_t i = 0; i < s->n_pools; i++)
        fs_pool_finish(&run.pools[i], s->horizon_s, &rep->pools[i]);
    fs_training_finish(&run.training, s->horizon_s);
    rep->spot_reclaims = run.fleet.reclaims;
    if (run.fleet.quota && rep->quotas)
        fs_quota_finish(run.fleet.quota, s->horizon_s, rep->quotas);
    rep->events = run.sim.events;
out:
    fs__replication_fini(&run);
    return rc;
}

static double fs__peak_rss_mb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_maxrss / 1024.0; /* Linux reports kilobytes */
}

/* Offered load from the arrival profile and the placed replicas' speeds:
 * each replica serves concurrency / (E[S] x its speed scale) requests per
 * second, and an autoscaled service may grow to max_replicas (replicas beyond
 * the starting ones counted at the starting ones' mean speed; a service that
 * starts with none, at the speed of its pool's first unit).  Time-slicing
 * contention is left out: it depends on what the other tenants do, which only
 * the run shows.  This sets service i's load from its arrival rates and
 * mean service time. */
static void fs__set_load(fs_policy_result *pol, size_t i, double mean_rps, double peak_rps, double mean_service)
{
    const fs_service_spec *spec = &pol->scenario->services[i];
    fs_service_load *load = &pol->loads[i];
    load->mean_rps = mean_rps;
    load->peak_rps = peak_rps;
    load->capacity_rps = 0;
    for (uint32_t k = 0; k < spec->replicas; k++)
        load->capacity_rps += mean_service > 0
                                  ? spec->concurrency / (mean_service * fs_placement_scale(pol->placement, i, k))
                                  : INFINITY;
    if (spec->replicas == 0 && spec->max_replicas > 0) {
        const fs_pool_units *pu = &pol->placement->pools[spec->pool];
        double scale = pu->n_units_max ? fs_placement_unit_scale(pol->placement, i, &pu->units[0]) : 1.0;
        load->capacity_rps =
            mean_service > 0 ? (double)spec->max_replicas * spec->concurrency / (mean_service * scale) : INFINITY;
    } else if (spec->max_replicas > spec->replicas) {
        load->capacity_rps *= (double)spec->max_replicas / spec->replicas;
    }
    load->offered_load = load->mean_rps / load->capacity_rps;
    load->peak_offered_load = load->peak_rps / load->capacity_rps;
    /* Replays' only (fs__trace_loads sets them after this). */
    load->peak_hour_rps = load->span_s = load->peak_hour_offered_load = NAN;
}

/* Loads known before the run: every service but replayed ones (fs__trace_loads). */
static void fs__compute_loads(fs_policy_result *pol)
{
    const fs_scenario *s = pol->scenario;
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_service_spec *spec = &s->services[i];
        if (spec->arrivals.trace)
            continue;
        fs_arrival_profile profile = {.spec = &spec->arrivals, .start_weekday = s->start_weekday};
        fs__set_load(pol, i, fs_arrivals_mean_rate(&profile, s->warmup_s, s->horizon_s),
                     fs_arrivals_peak_rate(&profile, s->warmup_s, s->horizon_s), fs_dist_mean(&spec->service_time));
    }
}

/* A replayed trace's rate is known only once it is read: its load comes
 * from the replications' arrivals, which replay the same rows: the mean over
 * the span they cover in the measured interval, the peak over their busiest
 * window and their busiest clock hour (results.h, fs_service_load).  Over
 * the whole measured interval instead, a trace covering two hours of a
 * day's run would show a twelfth of its load. */
static void fs__trace_loads(const fs_results *r, fs_policy_result *pol)
{
    const fs_scenario *s = pol->scenario;
    double measured = fs_results_measured_s(r);
    for (size_t i = 0; i < s->n_services; i++) {
        if (!s->services[i].arrivals.trace || pol->n_reps == 0 || measured <= 0)
            continue;
        double mean = 0, span = 0, peak = 0, peak_hour = 0, demand = 0, rows = 0;
        bool spanned = true; /* every replication had a span (two arrivals or more): else no data */
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            const fs_service_rep *rep = fs_rep_service(&pol->reps[k], i);
            const fs_span *a = &rep->arrival_span;
            spanned = spanned && !isnan(fs_span_rate(a));
            mean += fs_span_rate(a) / pol->n_reps;
            span += fs_span_length(a) / pol->n_reps;
            peak_hour = fmax(peak_hour, fs_span_peak_hour_rate(a));
            demand += rep->trace_demand_s;
            rows += (double)rep->trace_rows;
            /* The busiest window, taken as windows closed (windows.h). */
            if (rep->peak_window_rps > peak)
                peak = rep->peak_window_rps;
        }
        /* Sized requests bring their own demand; others draw service_time.
         * An LLM service's replayed tokens give its capacity estimate. */
        bool sized = s->services[i].arrivals.trace_sized && rows > 0;
        double per_request = sized ? demand / rows : fs_dist_mean(&s->services[i].service_time);
        const fs_llm_serving *llm = &s->services[i].batching.llm;
        if (s->services[i].batching.kind == FS_BATCHING_CONTINUOUS && llm->tokens_from_trace && rows > 0) {
            double prompt = 0, output = 0;
            for (uint32_t k = 0; k < pol->n_reps; k++) {
                const fs_service_rep *rep = fs_rep_service(&pol->reps[k], i);
                prompt += rep->all_prompt_tokens;
                output += rep->all_output_tokens;
            }
            fs_error err = {0};
            double seconds = 0;
            if (fs_scenario_llm_request_s(s, i, prompt / rows, output / rows, &seconds, &err) == FS_OK)
                per_request = seconds;
        }
        fs__set_load(pol, i, spanned ? mean : NAN, peak, per_request);
        fs_service_load *load = &pol->loads[i];
        load->span_s = spanned ? span : NAN;
        load->peak_hour_rps = spanned ? peak_hour : NAN;
        load->peak_hour_offered_load = load->peak_hour_rps / load->capacity_rps;
    }
}

/* The sink's begin or end call for replication k of policy p: FS_OK, or
 * FS_ERR_RUNTIME naming its errno. */
static int fs__sink_call(int (*call)(void *, const fs_results *, size_t, uint32_t), const fs_window_sink *sink,
                         const fs_results *r, size_t p, uint32_t k, fs_error *err)
{
    int rc = sink && call ? call(sink->ctx, r, p, k) : 0;
    return rc == 0 ? FS_OK
                   : fs_error_set(err, FS_ERR_RUNTIME, "replication %u: time-series windows: %s", k, strerror(rc));
}

/* Runs replications first, first + 1, ... of every policy of r into
 * reps[0..n_reps-1], their windows to sink (NULL: kept in memory). */
static int fs__run_into(fs_results *r, uint32_t first, fs__watcher *watcher, const fs_window_sink *sink,
                        fs_error *err)
{
    if (watcher)
        for (size_t p = 0; p < r->n_policies; p++)
            watcher->progress.total += r->policies[p].n_reps;
    /* Every policy runs the same replications with the same streams: the
     * comparison between policies is paired (common random numbers). */
    for (size_t p = 0; p < r->n_policies; p++) {
        fs_policy_result *pol = &r->policies[p];
        int rc = fs_placement_compute(pol->scenario, &pol->placement, err);
        if (rc != FS_OK)
            return rc;
        fs__compute_loads(pol);
        for (uint32_t k = 0; k < pol->n_reps; k++) {
            if (fs_rep_result_init(&pol->reps[k], pol->scenario, first + k, r->n_tenants) != 0)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for results");
            uint32_t rn = first + k;
            rc = fs__sink_call(sink ? sink->begin : NULL, sink, r, p, rn, err);
            if (rc == FS_OK)
                rc = fs__run_replication(r, pol->scenario, pol->placement, rn, &pol->reps[k], watcher, sink, err);
            if (rc == FS_OK)
                rc = fs__sink_call(sink ? sink->end : NULL, sink, r, p, rn, err);
            if (rc != FS_OK)
                return rc;
            /* Merged now, so memory does not grow with replications x services. */
            if (fs_results_seal_rep(r, p, k) != 0)
                return fs_error_set(err, FS_ERR_RUNTIME, "out of memory merging replication %u", first + k);
            r->events += pol->reps[k].events;
            if (watcher) {
                watcher->events_before = r->events;
                watcher->progress.done++;
            }
        }
        fs__trace_loads(r, pol);
    }
    return FS_OK;
}

static int fs__run(const fs_scenario *s, const size_t *which, size_t n, const fs_run_watch *watch,
                   fs_results **out, fs_error *err)
{
    fs__watcher watcher = {.watch = watch};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fs_results *r;
    if (fs_results_create(s, which, n, &r) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for results");
    if (watch && watch->keep_bytes)
        r->keep_hist_max = r->keep_rep_max = r->keep_merged_max = watch->keep_bytes;
    /* The engine's watcher only for a limit or progress to show. */
    bool watching = watch && (watch->max_events || watch->progress);
    int rc = fs__run_into(r, 0, watching ? &watcher : NULL, watch ? watch->windows : NULL, err);
    if (rc != FS_OK) {
        fs_results_destroy(r);
        return rc;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    r->peak_rss_mb = fs__peak_rss_mb();
    *out = r;
    return FS_OK;
}

int fs_run_scenario(const fs_scenario *s, fs_results **out, fs_error *err)
{
    return fs__run(s, NULL, 0, NULL, out, err);
}

int fs_run_policies(const fs_scenario *s, const char *const *names, size_t n_names, fs_results **out,
                    fs_error *err)
{
    return fs_run_watched(s, names, n_names, NULL, out, err);
}

double fs_run_estimate_events(const fs_scenario *s)
{
    double events = 0;
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_service_spec *spec = &s->services[i];
        if (spec->arrivals.trace)
            continue;
        fs_arrival_profile profile = {.spec = &spec->arrivals, .start_weekday = s->start_weekday};
        events += 2 * fs_arrivals_mean_rate(&profile, 0, s->horizon_s) * s->horizon_s;
    }
    return events;
}

int fs_run_watched(const fs_scenario *s, const char *const *names, size_t n_names, const fs_run_watch *watch,
                   fs_results **out, fs_error *err)
{
    if (!names)
        return fs__run(s, NULL, 0, watch, out, err);
    size_t n_variants = s->policies ? s->n_policies : 1;
    size_t *which = malloc((n_names ? n_names : 1) * sizeof *which);
    if (!which)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
    for (size_t i = 0; i < n_names; i++) {
        which[i] = SIZE_MAX;
        for (size_t v = 0; v < n_variants && which[i] == SIZE_MAX; v++) {
            const fs_scenario *variant = s->policies ? s->policies[v] : s;
            if (strcmp(variant->policy ? variant->policy : "default", names[i]) == 0)
                which[i] = v;
        }
        if (which[i] == SIZE_MAX) {
            char known[512] = "";
            size_t len = 0;
            for (size_t v = 0; v < n_variants && len < sizeof known; v++)
                len += (size_t)snprintf(known + len, sizeof known - len, "%s\"%s\"", v ? ", " : "",
                                        s->policies ? s->policies[v]->policy : "default");
            fs_error_set(err, FS_ERR_INPUT, "%s: no policy named \"%s\" (the scenario has %s)", s->path,
                         names[i], known);
            free(which);
            return FS_ERR_INPUT;
        }
    }
    int rc = fs__run(s, which, n_names, watch, out, err);
    free(which);
    return rc;
}

int fs_run_replication(const fs_scenario *s, size_t variant, uint32_t replication, fs_results **out,
                       fs_error *err)
{
    fs_results *r;
    if (fs_results_create(s, &variant, 1, &r) != 0)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for results");
    r->policies[0].n_reps = 1; /* the array holds s->replications >= 1 */
    /* A sweep's or plan's unit records figures (metrics.h), none of which
     * reads a window row: the rows go nowhere, so a worker's memory does not
     * grow with windows (the growth fit's scratch file goes to $TMPDIR). */
    static const fs_window_sink nowhere = {0};
    int rc = fs__run_into(r, replication, NULL, &nowhere, err);
    if (rc != FS_OK) {
        fs_results_destroy(r);
        return rc;
    }
    *out = r;
    return FS_OK;
}

/*
 * backtest — a fitted fragment against its trace's held-back part (see
 * backtest.h): the split and the fit part (prepare), the two variants built
 * from the scenario's document, and the bisection for the replicas each
 * needs (run).
 */
#include "backtest.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "results.h"
#include "run.h"

/* The fit variant's rate before the trace starts: as good as nothing (a
 * burst's multiplier must be > 0). */
#define BT_SILENT 1e-9

static const char *const bt_weekdays[] = {"monday", "tuesday", "wednesday", "thursday",
                                          "friday", "saturday", "sunday"};

/* ---- the trace and the split ---------------------------------------------- */

/* The trace as fit-traffic reads it: on its own clock, once through. */
static fs_trace_spec bt_plain(const fs_trace_spec *spec)
{
    fs_trace_spec plain = *spec; /* strings borrowed: the reader copies what it keeps */
    plain.rate_scale = 1;
    plain.shift_s = 0;
    plain.repeat = false;
    return plain;
}

/* A sized row's service time in ms, as the replay computes it (fs_arrivals). */
static double bt_service_ms(const fs_arrivals *a, const fs_trace_row *row)
{
    return 1e3 * (a->trace_base_s + a->trace_per_size_s[0] * row->size[0] + a->trace_per_size_s[1] * row->size[1]);
}

static int bt_keep_sample(fs_backtest *bt, size_t *cap, double ms, fs_error *err)
{
    if (bt->n_samples == *cap) {
        size_t grown = *cap ? 2 * *cap : 1024;
        double *s = realloc(bt->samples_ms, grown * sizeof *s);
        if (!s)
            return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for %zu service times", grown);
        bt->samples_ms = s;
        *cap = grown;
    }
    bt->samples_ms[bt->n_samples++] = ms;
    return FS_OK;
}

/* One pass over the rows.  Without a split yet (split_s INFINITY): their
 * count and the last one's time.  With one: the rows on each side and, for
 * a sized trace, the fit part's service times. */
static int bt_scan(fs_backtest *bt, const fs_arrivals *a, double split_s, fs_error *err)
{
    fs_trace_spec plain = bt_plain(a->trace);
    fs_trace *t = NULL;
    int rc = fs_trace_open(&plain, &t, err);
    if (rc != FS_OK)
        return rc;
    fs_trace_row row;
    size_t cap = 0;
    int got;
    while (rc == FS_OK && (got = fs_trace_next(t, &row, err)) == 1) {
        if (!isfinite(split_s)) {
            bt->rows++;
            bt->span_s = row.t;
        } else if (row.t >= split_s) {
            bt->held_rows++;
        } else {
            bt->fit_rows++;
            if (a->trace_sized)
                rc = bt_keep_sample(bt, &cap, bt_service_ms(a, &row), err);
        }
    }
    fs_trace_close(t);
    if (rc == FS_OK && got < 0)
        rc = err->code ? err->code : FS_ERR_INPUT;
    return rc;
}

/* The service: the one named, or the first replaying a trace. */
static int bt_pick(fs_backtest *bt, const char *name, fs_error *err)
{
    const fs_scenario *s = bt->scenario;
    for (size_t k = 0; k < s->n_services; k++) {
        const fs_service_spec *svc = &s->services[k];
        if (name ? strcmp(svc->name, name) != 0 : !svc->arrivals.trace)
            continue;
        bt->service = k;
        bt->service_name = svc->name;
        if (!svc->arrivals.trace)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: service \"%s\" replays no trace (its arrivals have no \"trace\"): there is "
                                "nothing to fit and back-test",
                                s->path, name);
        if (svc->batching.kind == FS_BATCHING_CONTINUOUS || svc->decode_replicas > 0)
            return fs_error_set(err, FS_ERR_INPUT,
                                "%s: service \"%s\" is an LLM service: the back-test handles services without "
                                "continuous batching (the fit gives no prompt and output tokens)",
                                s->path, svc->name);
        return FS_OK;
    }
    if (name)
        return fs_error_set(err, FS_ERR_INPUT, "%s: no service \"%s\"", s->path, name);
    return fs_error_set(err, FS_ERR_INPUT, "%s: no service replays a trace (\"arrivals\": {\"trace\": ...})",
                        s->path);
}

/* The p99 target to judge by: the one given, else the service's. */
static int bt_slo(fs_backtest *bt, double given_s, fs_error *err)
{
    const fs_slo *slo = &bt->scenario->services[bt->service].slo;
    bt->slo_p99_s = given_s;
    for (size_t k = 0; bt->slo_p99_s == 0 && k < slo->n_targets; k++)
        if (slo->targets[k].quantile == 0.99)
            bt->slo_p99_s = slo->targets[k].threshold_s;
    if (bt->slo_p99_s > 0)
        return FS_OK;
    return fs_error_set(err, FS_ERR_INPUT, "%s: service \"%s\" has no p99 target (\"slo\": {\"p99_ms\": ...}): give --slo-p99",
                        bt->scenario->path, bt->service_name);
}

/* Splits the trace and checks that each part can carry its figure. */
static int bt_split(fs_backtest *bt, const fs_arrivals *a, fs_error *err)
{
    const char *path = a->trace->path;
    int rc = bt_scan(bt, a, INFINITY, err);
    if (rc != FS_OK)
        return rc;
    if (bt->rows < 2 || !(bt->span_s > 0))
        return fs_error_set(err, FS_ERR_INPUT, "%s: %llu row(s) spanning no time: too short to split and back-test",
                            path, (unsigned long long)bt->rows);
    bt->split_s = (1 - bt->holdout) * bt->span_s;
    if ((rc = bt_scan(bt, a, bt->split_s, err)) != FS_OK)
        return rc;
    if (bt->held_rows < FS_BACKTEST_MIN_HELD)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: the held-back part (from %.10g s of the trace's %.10g s) holds %llu rows: a p99 "
                            "needs at least %d (a larger --holdout or a longer trace)",
                            path, bt->split_s, bt->span_s, (unsigned long long)bt->held_rows, FS_BACKTEST_MIN_HELD);
    if (bt->fit_rows < 2)
        return fs_error_set(err, FS_ERR_INPUT,
                            "%s: the part to fit (before %.10g s of the trace's %.10g s) holds %llu row(s): a rate "
                            "needs at least 2 (a smaller --holdout or a longer trace)",
                            path, bt->split_s, bt->span_s, (unsigned long long)bt->fit_rows);
    return FS_OK;
}

int fs_backtest_prepare(const fs_backtest_spec *spec, fs_backtest *bt, fs_fit_acc *acc, fs_error *err)
{
    memset(bt, 0, sizeof *bt);
    memset(acc, 0, sizeof *acc);
    bt->holdout = spec->holdout != 0 ? spec->holdout : FS_BACKTEST_HOLDOUT;
    bt->max_replicas = spec->max_replicas ? spec->max_replicas : FS_BACKTEST_MAX_REPLICAS;
    if (!(bt->holdout > 0 && bt->holdout < 1))
        return fs_error_set(err, FS_ERR_INPUT, "%s: the holdout is the share of the trace held back, in (0, 1), got %g",
                            spec->scenario, bt->holdout);
    if (bt->max_replicas > FS_SCENARIO_MAX_REPLICAS)
        return fs_error_set(err, FS_ERR_INPUT, "%s: at most %d replicas can be tried, not %u", spec->scenario,
                            FS_SCENARIO_MAX_REPLICAS, bt->max_replicas);
    if (!(spec->slo_p99_s >= 0 && isfinite(spec->slo_p99_s)))
        return fs_error_set(err, FS_ERR_INPUT, "%s: the p99 target must be above 0, got %g s", spec->scenario,
                            spec->slo_p99_s);
    int rc = fs_scenario_load(spec->scenario, &bt->scenario, err);
    if (rc != FS_OK)
        return rc;
    /* Loaded and checked above: what is left to fail here is the machine. */
    json_error_t jerr;
    bt->doc = json_load_file(spec->scenario, 0, &jerr);
    if (!bt->doc)
        return fs_error_set(err, FS_ERR_RUNTIME, "%s: %s", spec->scenario, jerr.text);
    if ((rc = bt_pick(bt, spec->service, err)) != FS_OK || (rc = bt_slo(bt, spec->slo_p99_s, err)) != FS_OK)
        return rc;
    const fs_arrivals *a = &bt->scenario->services[bt->service].arrivals;
    bt->trace_path = a->trace->path;
    if ((rc = bt_split(bt, a, err)) != FS_OK)
        return rc;
    fs_trace_spec plain = bt_plain(a->trace);
    rc = fs_fit_read_requests_until(&plain, bt->scenario->start_weekday, spec->window_s > 0 ? spec->window_s : 60,
                                    bt->split_s, acc, err);
    bt->first_s = acc->first_s;
    bt->weekday0 = acc->weekday0;
    return rc;
}

void fs_backtest_fini(fs_backtest *bt)
{
    json_decref(bt->doc);
    fs_scenario_destroy(bt->scenario);
    free(bt->samples_ms);
    memset(bt, 0, sizeof *bt);
}

/* ---- the variants ----------------------------------------------------------- */

/* Document edits: each records a failure (out of memory) in *ok. */
static void bt_set(json_t *obj, const char *key, json_t *value, bool *ok)
{
    if (json_object_set_new(obj, key, value) != 0)
        *ok = false;
}

/* Fixes "replicas" at r, no autoscaler.  In a policy's patch (RFC 7386) a
 * null deletes the autoscaler of the service it merges into, and a patch
 * without "replicas" is left alone. */
static void bt_fix_replicas(json_t *holder, uint32_t r, bool patch, bool *ok)
{
    json_t *rep = json_object_get(holder, "replicas");
    if (!json_is_object(rep)) {
        if (rep || !patch)
            bt_set(holder, "replicas", json_integer(r), ok);
        return;
    }
    bt_set(rep, "count", json_integer(r), ok);
    bt_set(rep, "min", json_integer(r), ok);
    bt_set(rep, "max", json_integer(r), ok);
    if (patch)
        bt_set(rep, "autoscale", json_null(), ok);
    else
        json_object_del(rep, "autoscale");
}

/* The fleet: the first policy alone, the service's pool fixed at no fewer
 * than max_replicas GPUs, the policy's patch of the service (if any) with
 * the replicas fixed and no other service's patch. */
static void bt_fleet(const fs_backtest *bt, json_t *doc, uint32_t r, bool *ok)
{
    const fs_scenario *first = bt->scenario->n_policies ? bt->scenario->policies[0] : bt->scenario;
    json_t *fleet = doc, *policies = json_object_get(doc, "policies");
    if (policies) {
        fleet = json_object_get(policies, first->policy);
        json_incref(fleet);
        bt_set(doc, "policies", json_pack("{s:o}", first->policy, fleet), ok);
    }
    /* Pools and services are parsed in document order, so the parsed
     * indices are the document's. */
    size_t pool = first->services[bt->service].pool;
    json_t *p = json_array_get(json_object_get(fleet, "pools"), pool);
    assert(p && strcmp(json_string_value(json_object_get(p, "name")), first->pools[pool].name) == 0);
    if (p) {
        json_int_t gpus = json_integer_value(json_object_get(p, "gpus"));
        bt_set(p, "gpus", json_integer(gpus > (json_int_t)bt->max_replicas ? gpus : (json_int_t)bt->max_replicas),
               ok);
        json_object_del(p, "autoscale");
    }
    json_t *patches = json_object_get(fleet, "services");
    json_t *own = json_object_get(patches, bt->service_name);
    if (patches) {
        json_incref(own);
        json_object_clear(patches);
        if (own)
            bt_set(patches, bt->service_name, own, ok);
    }
    if (own)
        bt_fix_replicas(own, r, true, ok);
}

/* The service's object for one side: its replicas fixed, its SLO just the
 * p99 target, and the fit's arrivals (with the silence before the trace)
 * and service times, or the trace replayed once on the fit's clock. */
static json_t *bt_service(const fs_backtest *bt, int side, const json_t *arrivals, uint32_t r, bool *ok)
{
    json_t *svc = json_deep_copy(json_array_get(json_object_get(bt->doc, "services"), bt->service));
    if (!svc) {
        *ok = false;
        return NULL;
    }
    bt_fix_replicas(svc, r, false, ok);
    bt_set(svc, "slo", json_pack("{s:f}", "p99_ms", 1e3 * bt->slo_p99_s), ok);
    json_t *a = json_object_get(svc, "arrivals");
    if (side == FS_BACKTEST_REPLAY) {
        json_t *trace = json_object_get(a, "trace");
        bt_set(trace, "rate_scale", json_integer(1), ok);
        bt_set(trace, "shift", json_real(bt->first_s), ok);
        bt_set(trace, "repeat", json_false(), ok);
        return svc;
    }
    a = json_deep_copy(arrivals);
    bt_set(svc, "arrivals", a, ok);
    if (a && bt->first_s > 0) {
        json_t *bursts = json_object_get(a, "bursts");
        if (!bursts)
            bt_set(a, "bursts", bursts = json_array(), ok);
        if (json_array_append_new(bursts, json_pack("{s:i, s:f, s:f}", "at", 0, "duration", bt->first_s,
                                                    "multiplier", BT_SILENT)) != 0)
            *ok = false;
    }
    if (bt->samples_ms) {
        json_t *samples = json_array();
        for (size_t k = 0; k < bt->n_samples; k++)
            if (json_array_append_new(samples, json_real(bt->samples_ms[k])) != 0)
                *ok = false;
        bt_set(svc, "service_time", json_pack("{s:{s:o}}", "empirical", "samples_ms", samples), ok);
    }
    return svc;
}

/* One side's scenario document at r replicas; NULL when out of memory. */
static json_t *bt_variant(const fs_backtest *bt, int side, const json_t *arrivals, uint32_t r)
{
    json_t *doc = json_deep_copy(bt->doc);
    bool ok = doc != NULL;
    if (!ok)
        return NULL;
    double end = bt->first_s + bt->span_s, split = bt->first_s + bt->split_s;
    bt_set(doc, "horizon", json_real(end), &ok);
    bt_set(doc, "warmup", json_real(split), &ok);
    bt_set(doc, "window", json_real(end - split), &ok);
    bt_set(doc, "start_weekday", json_string(bt_weekdays[bt->weekday0]), &ok);
    json_object_del(doc, "window_anchor");
    json_object_del(doc, "ci");
    json_object_del(doc, "training");
    bt_fleet(bt, doc, r, &ok);
    bt_set(doc, "services", json_pack("[o]", bt_service(bt, side, arrivals, r, &ok)), &ok);
    if (!ok) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* ---- the runs --------------------------------------------------------------- */

static const char *const bt_side_names[] = {"replay", "fit"};

/* What one side gave at each replica count run so far. */
typedef struct bt_memo {
    double *p99_ms;  /* NAN: no data */
    signed char *met; /* -1: not run; 0, 1 */
    double requests;
} bt_memo;

/* The side at r replicas: its p99 and whether it meets the target. */
static int bt_eval(const fs_backtest *bt, int side, const json_t *arrivals, uint32_t r, bt_memo *m,
                   uint32_t *runs, fs_error *err)
{
    if (m->met[r] >= 0)
        return FS_OK;
    json_t *doc = bt_variant(bt, side, arrivals, r);
    if (!doc)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory building the back-test's %s variant",
                            bt_side_names[side]);
    fs_scenario *s = NULL;
    fs_results *res = NULL;
    fs_service_summary sum;
    fs_error inner = {0};
    int rc = fs_scenario_parse_json(doc, bt->scenario->path, &s, &inner);
    json_decref(doc);
    if (rc == FS_OK)
        rc = fs_run_scenario(s, &res, &inner);
    if (rc == FS_OK && fs_results_service_summary(res, 0, 0, &sum) != 0)
        rc = fs_error_set(&inner, FS_ERR_RUNTIME, "out of memory summarising a run");
    if (rc == FS_OK) {
        m->p99_ms[r] = sum.slo_quantile_ms[0];
        m->met[r] = sum.slo_verdict[0] == FS_SLO_MET;
        m->requests = sum.requests.mean;
        *runs += s->replications;
    }
    fs_results_destroy(res);
    fs_scenario_destroy(s);
    if (rc != FS_OK)
        return fs_error_set(err, rc, "the back-test's %s variant at %u replicas: %s", bt_side_names[side], r, inner.msg);
    return FS_OK;
}

/* The fewest replicas meeting the target: p99 does not rise with replicas
 * (more servers, the same arrivals and service times), so bisect between
 * a count that fails (0 stands for one) and one that meets. */
static int bt_needed(const fs_backtest *bt, int side, const json_t *arrivals, bt_memo *m, uint32_t *runs,
                     uint32_t *needed, fs_error *err)
{
    uint32_t lo = 0, hi = bt->max_replicas;
    int rc = bt_eval(bt, side, arrivals, hi, m, runs, err);
    *needed = 0;
    if (rc != FS_OK || !m->met[hi])
        return rc;
    while (rc == FS_OK && hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        rc = bt_eval(bt, side, arrivals, mid, m, runs, err);
        if (rc == FS_OK)
            *(m->met[mid] ? &hi : &lo) = mid;
    }
    *needed = hi;
    return rc;
}

int fs_backtest_run(const fs_backtest *bt, const json_t *arrivals, fs_backtest_result *out, fs_error *err)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(out, 0, sizeof *out);
    size_t n = (size_t)bt->max_replicas + 1;
    bt_memo memo[2] = {{0}};
    int rc = FS_OK;
    for (int side = 0; rc == FS_OK && side < 2; side++) {
        memo[side].p99_ms = malloc(n * sizeof *memo[side].p99_ms);
        memo[side].met = malloc(n);
        if (!memo[side].p99_ms || !memo[side].met)
            rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory");
        else
            memset(memo[side].met, -1, n);
    }
    for (int side = 0; rc == FS_OK && side < 2; side++) {
        rc = bt_needed(bt, side, arrivals, &memo[side], &out->runs, &out->side[side].needed, err);
        out->side[side].requests = memo[side].requests;
        out->side[side].p99_ms_at_max = memo[side].p99_ms[bt->max_replicas];
    }
    /* Each side's p99 at the count each side needs. */
    for (int side = 0; rc == FS_OK && side < 2; side++) {
        for (int at = 0; rc == FS_OK && at < 2; at++) {
            uint32_t r = out->side[at].needed;
            out->side[side].p99_ms_at[at] = NAN;
            if (r > 0 && (rc = bt_eval(bt, side, arrivals, r, &memo[side], &out->runs, err)) == FS_OK)
                out->side[side].p99_ms_at[at] = memo[side].p99_ms[r];
        }
    }
    for (int side = 0; side < 2; side++) {
        free(memo[side].p99_ms);
        free(memo[side].met);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc;
}

double fs_backtest_error(double fit, double replay)
{
    if (!(isfinite(fit) && isfinite(replay) && fit > 0 && replay > 0))
        return NAN;
    return fit / replay - 1;
}

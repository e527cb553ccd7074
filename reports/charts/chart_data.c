/*
 * chart_data — results.json read into the in-memory fs__data: the scenario's
 * times, the policies with their pools and costs, the services charted, and
 * accumulators sized for the CSVs that chart_csv.c streams in.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"

#define FS__MAX_WINDOWS 4000000 /* time-series windows per policy we accept */
#define FS__MAX_DAYS 100000

void fs__data_fini(fs__data *d)
{
    for (size_t i = 0; i < d->n_pol; i++) {
        free(d->pol[i].pools);
        free(d->pol[i].busy);
        free(d->pol[i].gpus);
        free(d->pol[i].p99_sum);
        free(d->pol[i].p99_n);
        free(d->pol[i].breach);
        free(d->pol[i].ttft_sum);
        free(d->pol[i].tpot_sum);
        free(d->pol[i].kv_sum);
        free(d->pol[i].ttft_n);
        free(d->pol[i].tpot_n);
        free(d->pol[i].kv_n);
    }
    free(d->pol);
    for (size_t i = 0; i < d->n_series; i++) {
        free(d->series[i].stream);
        free(d->series[i].wait_s);
    }
    free(d->series);
    json_decref(d->root);
    memset(d, 0, sizeof *d);
}

/* -------------------------------------------------------- results.json */

static int fs__jfail(fs_error *err, const char *file, const char *where, const char *key,
                     const char *what)
{
    return fs_error_set(err, FS_ERR_INPUT, "%s: %s%s%s: expected %s", file, where,
                        *where ? "." : "", key, what);
}

static int fs__jnum(json_t *obj, const char *key, double *out, const char *file,
                    const char *where, fs_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return fs__jfail(err, file, where, key, "a number");
    *out = json_number_value(v);
    return FS_OK;
}

static int fs__jstr(json_t *obj, const char *key, const char **out, const char *file,
                    const char *where, fs_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_string(v))
        return fs__jfail(err, file, where, key, "a string");
    *out = json_string_value(v);
    return FS_OK;
}

/* The SLO's p99 target of a service object, NAN when it has none; *any set
 * when it has any target at all. */
static double fs__p99_target(json_t *service, bool *any)
{
    json_t *targets = json_object_get(json_object_get(service, "slo"), "targets");
    if (json_is_object(targets) && json_object_size(targets) > 0)
        *any = true;
    json_t *p99 = json_object_get(targets, "p99_ms");
    return json_is_number(p99) ? json_number_value(p99) : NAN;
}

/* An LLM target's threshold in ms (llm.ttft_slo or .tpot_slo: its one
 * pNN_ms member), NAN without one. */
static double fs__target(json_t *llm, const char *key)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(llm, key), k, v) {
        size_t n = strlen(k);
        if (n > 3 && k[0] == 'p' && strcmp(k + n - 3, "_ms") == 0 && json_is_number(v))
            return json_number_value(v);
    }
    return NAN;
}

int fs__load_json(fs__data *d, fs_error *err)
{
    char *path = fs__join(d->dir, "results.json");
    if (!path)
        return fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
    int rc = FS_OK;
    char where[96];
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
        goto out;
    }
    json_error_t je;
    d->root = json_loadf(fp, 0, &je);
    fclose(fp);
    if (!d->root) {
        rc = je.line >= 1 ? fs_error_set(err, FS_ERR_INPUT, "%s:%d:%d: %s", path, je.line,
                                         je.column, je.text)
                          : fs_error_set(err, FS_ERR_INPUT, "%s: %s", path, je.text);
        goto out;
    }
    json_t *scen = json_object_get(d->root, "scenario");
    if (!json_is_object(scen)) {
        rc = fs__jfail(err, path, "", "scenario", "an object");
        goto out;
    }
    d->scenario = json_string_value(json_object_get(scen, "name"));
    if (!d->scenario)
        d->scenario = "";
    if ((rc = fs__jnum(scen, "horizon_s", &d->horizon_s, path, "scenario", err)) ||
        (rc = fs__jnum(scen, "warmup_s", &d->warmup_s, path, "scenario", err)) ||
        (rc = fs__jnum(scen, "window_s", &d->window_s, path, "scenario", err)))
        goto out;
    if (!(d->window_s > 0) || !(d->warmup_s >= 0) || !(d->horizon_s > d->warmup_s)) {
        rc = fs_error_set(err, FS_ERR_INPUT,
                          "%s: scenario: expected window_s > 0 and horizon_s > warmup_s >= 0", path);
        goto out;
    }
    double windows = ceil((d->horizon_s - d->warmup_s) / d->window_s - 1e-9);
    double days = ceil(d->horizon_s / FS__DAY_S - 1e-9);
    if (windows > FS__MAX_WINDOWS || days > FS__MAX_DAYS) {
        rc = fs_error_set(err, FS_ERR_INPUT,
                          "%s: scenario: %.0f windows over %.0f days is more than charts can draw",
                          path, windows, days);
        goto out;
    }
    d->n_windows = (size_t)windows;
    d->n_days = (size_t)days;
    d->first_day = (size_t)floor(d->warmup_s / FS__DAY_S);
    /* p99 by time of day: quarter-hour bins, or the window when it is longer. */
    d->bin_s = d->window_s <= 900 ? 900 : d->window_s;
    d->n_bins = d->bin_s >= FS__DAY_S ? 1 : (size_t)ceil(FS__DAY_S / d->bin_s);

    json_t *pols = json_object_get(d->root, "policies");
    if (!json_is_array(pols) || json_array_size(pols) == 0) {
        rc = fs__jfail(err, path, "", "policies", "a non-empty array");
        goto out;
    }
    d->n_pol = json_array_size(pols);
    d->pol = calloc(d->n_pol, sizeof *d->pol);
    if (!d->pol) {
        d->n_pol = 0;
        rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
        goto out;
    }
    for (size_t i = 0; i < d->n_pol; i++) {
        fs__policy *p = &d->pol[i];
        json_t *pj = json_array_get(pols, i);
        snprintf(where, sizeof where, "policies[%zu]", i);
        if ((rc = fs__jstr(pj, "name", &p->name, path, where, err)))
            goto out;
        json_t *services = json_object_get(pj, "services");
        json_t *pools = json_object_get(pj, "pools");
        if (!json_is_array(services)) {
            rc = fs__jfail(err, path, where, "services", "an array");
            goto out;
        }
        if (!json_is_array(pools)) {
            rc = fs__jfail(err, path, where, "pools", "an array");
            goto out;
        }
        for (size_t s = 0; s < json_array_size(services); s++) {
            json_t *sj = json_array_get(services, s);
            const char *name = "";
            snprintf(where, sizeof where, "policies[%zu].services[%zu]", i, s);
            if ((rc = fs__jstr(sj, "name", &name, path, where, err)))
                goto out;
            double target = fs__p99_target(sj, &d->any_slo);
            json_t *llm = json_object_get(sj, "llm");
            if (i == 0 && !d->llm && json_is_object(llm)) {
                d->llm = name;
                d->ttft_target_ms = fs__target(llm, "ttft_slo");
                d->tpot_target_ms = fs__target(llm, "tpot_slo");
            }
            if (d->llm && json_is_object(llm) && strcmp(name, d->llm) == 0) {
                json_t *steps = json_object_get(llm, "steps_by_batch_size");
                p->steps = json_is_array(steps) ? steps : NULL;
            }
            /* The services charted: those of the first policy with a p99 SLO. */
            if (i == 0 && !isnan(target) && d->n_sel < FS__MAX_SERVICES)
                d->sel[d->n_sel++] = (fs__service){name, target};
        }
        if (i == 0 && d->n_sel == 0 && json_array_size(services) > 0) {
            d->sel[0].name = json_string_value(json_object_get(json_array_get(services, 0), "name"));
            d->sel[0].p99_ms = NAN;
            d->n_sel = 1;
        }
        p->n_pools = json_array_size(pools);
        p->pools = calloc(p->n_pools ? p->n_pools : 1, sizeof *p->pools);
        if (!p->pools) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
            goto out;
        }
        for (size_t k = 0; k < p->n_pools; k++) {
            json_t *qj = json_array_get(pools, k);
            fs__pool *q = &p->pools[k];
            const char *cls = "";
            snprintf(where, sizeof where, "policies[%zu].pools[%zu]", i, k);
            if ((rc = fs__jstr(qj, "name", &q->name, path, where, err)) ||
                (rc = fs__jstr(qj, "price_class", &cls, path, where, err)) ||
                (rc = fs__jnum(qj, "cost_usd", &q->cost_usd, path, where, err)))
                goto out;
            q->spot = strcmp(cls, "spot") == 0;
            json_t *g = json_object_get(qj, "gpus");
            q->gpus = json_is_number(g) ? json_number_value(g) : NAN;
        }
        p->max_rep = -1;
        p->busy = calloc(d->n_windows ? d->n_windows : 1, sizeof *p->busy);
        p->gpus = calloc(d->n_windows ? d->n_windows : 1, sizeof *p->gpus);
        p->p99_sum = calloc(FS__MAX_SERVICES * d->n_bins, sizeof *p->p99_sum);
        p->p99_n = calloc(FS__MAX_SERVICES * d->n_bins, sizeof *p->p99_n);
        p->breach = calloc(d->n_days * 24, sizeof *p->breach);
        if (d->llm) {
            p->ttft_sum = calloc(d->n_bins, sizeof *p->ttft_sum);
            p->tpot_sum = calloc(d->n_bins, sizeof *p->tpot_sum);
            p->ttft_n = calloc(d->n_bins, sizeof *p->ttft_n);
            p->tpot_n = calloc(d->n_bins, sizeof *p->tpot_n);
            p->kv_sum = calloc(d->n_windows ? d->n_windows : 1, sizeof *p->kv_sum);
            p->kv_n = calloc(d->n_windows ? d->n_windows : 1, sizeof *p->kv_n);
            if (!p->ttft_sum || !p->tpot_sum || !p->ttft_n || !p->tpot_n || !p->kv_sum || !p->kv_n) {
                rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
                goto out;
            }
        }
        if (!p->busy || !p->gpus || !p->p99_sum || !p->p99_n || !p->breach) {
            rc = fs_error_set(err, FS_ERR_RUNTIME, "charts: out of memory");
            goto out;
        }
    }
out:
    free(path);
    return rc;
}

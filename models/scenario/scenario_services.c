/*
 * scenario_services — one member of "services": its name and tenant, the
 * pool it runs on, its service time, its replicas (a fixed count or an
 * autoscaler's bounds), queue limit, SLO, memory footprint and reference GPU,
 * and on a fractional pool its compute share.
 * Its "arrivals" are scenario_arrivals.c's, its "batching"
 * scenario_batching.c's.
 */
#include "scenario_parse.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Service autoscaler cadence: evaluate every 10 s, act at most once a
 * minute, give a replica back after 10 minutes of not needing it. */
#define DEFAULT_AUTOSCALE_INTERVAL_S 10.0
#define DEFAULT_AUTOSCALE_COOLDOWN_S 60.0
#define DEFAULT_AUTOSCALE_IDLE_S 600.0

/* With "batching" the batch time replaces the service time: "service_time"
 * is refused, and set to the per-request time of full batches so capacity
 * figures (offered load) read max_batch_size / batch_time(max) per replica. */
static int parse_service_time(fs_jpath *p, const json_t *svc, fs_service_spec *out)
{
    const fs_batching *b = &out->batching;
    if (b->kind == FS_BATCHING_NONE)
        return fs__scenario_parse_dist(p, svc, "service_time", true, &out->service_time);
    if (json_object_get(svc, "service_time")) {
        size_t mark = fs_jpath_push_key(p, "service_time");
        int rc = fs_jpath_fail(p, "a batched service's time is \"batching.%s\"; remove \"service_time\"",
                               b->kind == FS_BATCHING_CONTINUOUS ? "step_time" : "batch_time");
        fs_jpath_pop(p, mark);
        return rc;
    }
    if (b->kind == FS_BATCHING_CONTINUOUS)
        return FS_OK; /* set once the pool and reference GPU are known */
    fs_dist_deterministic(&out->service_time,
                          fs_scenario_batch_time(b, b->max_batch_size) / b->max_batch_size);
    return FS_OK;
}

/* "replicas": {..., "autoscale": {...}} (the cursor is on "replicas"). */
static int parse_service_autoscale(fs_jpath *p, const json_t *replicas, fs_autoscale *a)
{
    static const char *const keys[] = {"target_in_flight", "p95_ms", "interval", "cooldown",
                                       "idle"};
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, replicas, "autoscale", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "autoscale");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "target_in_flight", true, FS_JPATH_POSITIVE,
                                 &a->target_in_flight);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "p95_ms", false, FS_JPATH_POSITIVE, &a->p95_ms);
    if (rc == FS_OK)
        rc = fs__scenario_get_floored_duration(p, obj, "interval", false,
                                               FS_SCENARIO_MIN_AUTOSCALE_INTERVAL_S, &a->interval_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "cooldown", false, FS_JPATH_NONNEG, &a->cooldown_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "idle", false, FS_JPATH_POSITIVE, &a->idle_s);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        a->enabled = true;
    return rc;
}

/* Fails at replicas[key] with "expected an integer <relation> "<bound_key>"
 * (<bound>), got <value>". */
static int replicas_bound_error(fs_jpath *p, const json_t *obj, const char *key,
                                const char *relation, const char *bound_key, uint64_t bound)
{
    size_t mark = fs_jpath_push_key(p, key);
    int rc = fs_jpath_expected(p, json_object_get(obj, key), "an integer %s \"%s\" (%" PRIu64 ")",
                               relation, bound_key, bound);
    fs_jpath_pop(p, mark);
    return rc;
}

/* A plain count N is a fixed N.  The object form: "count" is the starting
 * count; "count" and "min" default to each other (1 when neither is given),
 * "max" to "count"; min <= count <= max.  "min" and "max" bound the
 * autoscaler, so without "autoscale" they must equal the count, and with it
 * max must exceed min.  Only an autoscaled service may start with no
 * replica ("count" 0, so "min" 0 too: scale from zero); a fixed count of 0
 * would serve nothing. */
static int parse_replicas(fs_jpath *p, const json_t *svc, fs_service_spec *out)
{
    static const char *const keys[] = {"count", "min", "max", "concurrency", "autoscale"};
    json_t *v = NULL;
    uint64_t count = 1, min = 1, max = 1, concurrency = 1;
    fs_autoscale *a = &out->autoscale;
    *a = (fs_autoscale){false, 0, 0, DEFAULT_AUTOSCALE_INTERVAL_S, DEFAULT_AUTOSCALE_COOLDOWN_S,
                        DEFAULT_AUTOSCALE_IDLE_S};
    int rc = fs_jpath_get(p, svc, "replicas", false, &v);
    if (rc != FS_OK)
        return rc;
    if (v != NULL) {
        size_t mark = fs_jpath_push_key(p, "replicas");
        if (json_is_object(v)) {
            bool has_count = json_object_get(v, "count") != NULL;
            bool has_min = json_object_get(v, "min") != NULL;
            bool has_max = json_object_get(v, "max") != NULL;
            rc = fs_jpath_check_keys(p, v, keys, COUNT(keys));
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "count", false, 0, FS_SCENARIO_MAX_REPLICAS, &count);
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "min", false, 0, FS_SCENARIO_MAX_REPLICAS, &min);
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "max", false, 1, FS_SCENARIO_MAX_REPLICAS, &max);
            if (rc == FS_OK)
                rc = fs_jpath_get_uint(p, v, "concurrency", false, 1, FS_SCENARIO_MAX_CONCURRENCY,
                                       &concurrency);
            if (!has_count)
                count = min;
            if (!has_min)
                min = count;
            if (!has_max)
                max = count;
            /* Blame a key that was written: count < min needs a written
             * count (else count = min), and count > max without one means
             * max < min. */
            if (rc == FS_OK && count < min)
                rc = replicas_bound_error(p, v, "count", "no smaller than", "min", min);
            else if (rc == FS_OK && count > max && has_count)
                rc = replicas_bound_error(p, v, "count", "no larger than", "max", max);
            else if (rc == FS_OK && count > max)
                rc = replicas_bound_error(p, v, "max", "no smaller than", "min", min);
            if (rc == FS_OK)
                rc = parse_service_autoscale(p, v, a);
            if (rc == FS_OK && a->enabled && max <= min) {
                size_t m = fs_jpath_push_key(p, "autoscale");
                rc = fs_jpath_fail(p,
                                   "an autoscaler needs room to move: \"max\" (%" PRIu64
                                   ") must be above \"min\" (%" PRIu64 "); raise \"max\" (it "
                                   "defaults to \"count\") or remove \"autoscale\" for a fixed "
                                   "count",
                                   max, min);
                fs_jpath_pop(p, m);
            } else if (rc == FS_OK && !a->enabled && (min != count || max != count)) {
                rc = fs_jpath_fail(p,
                                   "\"min\" (%" PRIu64 ") and \"max\" (%" PRIu64
                                   ") bound an autoscaler, but there is no \"autoscale\", so the "
                                   "count is fixed at %" PRIu64
                                   "; add \"autoscale\" or remove \"min\" and \"max\"",
                                   min, max, count);
            } else if (rc == FS_OK && !a->enabled && count == 0) {
                size_t m = fs_jpath_push_key(p, has_count ? "count" : "min");
                rc = fs_jpath_fail(p,
                                   "a service with no replica and no autoscaler would serve nothing: "
                                   "add \"autoscale\" (and a \"max\" above 0) to start from zero, or "
                                   "give a count of at least 1");
                fs_jpath_pop(p, m);
            }
        } else if (json_is_number(v)) {
            rc = fs_jpath_uint(p, v, 1, FS_SCENARIO_MAX_REPLICAS, &count);
            min = max = count;
        } else {
            rc = fs_jpath_expected(p, v,
                                   "a positive integer or an object {\"count\", \"min\", \"max\", "
                                   "\"concurrency\", \"autoscale\"}");
        }
        fs_jpath_pop(p, mark);
    }
    out->replicas = (uint32_t)count;
    out->min_replicas = (uint32_t)min;
    out->max_replicas = (uint32_t)max;
    out->concurrency = (uint32_t)concurrency;
    return rc;
}

static const struct {
    const char *key;
    double quantile;
} slo_keys[FS_SLO_MAX_TARGETS] = {
    {"p50_ms", 0.5}, {"p90_ms", 0.9}, {"p95_ms", 0.95}, {"p99_ms", 0.99}, {"p999_ms", 0.999},
};

/* At most one "<prefix>_pNN_ms" of obj, into *t (threshold 0: none). */
static int parse_llm_target(fs_jpath *p, const json_t *obj, const char *prefix, fs_slo_target *t)
{
    *t = (fs_slo_target){0};
    const char *first = NULL;
    for (size_t i = 0; i < FS_SLO_MAX_TARGETS; i++) {
        char key[32];
        snprintf(key, sizeof key, "%s_%s", prefix, slo_keys[i].key);
        double ms = -1;
        int rc = fs_jpath_get_number(p, obj, key, false, FS_JPATH_POSITIVE, &ms);
        if (rc != FS_OK)
            return rc;
        if (ms <= 0)
            continue;
        if (first) {
            size_t m = fs_jpath_push_key(p, key);
            rc = fs_jpath_fail(p, "one %s target per service: \"%s\" is already given", prefix, first);
            fs_jpath_pop(p, m);
            return rc;
        }
        first = slo_keys[i].key;
        *t = (fs_slo_target){slo_keys[i].quantile, ms / 1000.0};
    }
    return FS_OK;
}

static int parse_slo(fs_jpath *p, const json_t *svc, double default_window_s, bool llm, fs_slo *slo)
{
    static const char *const keys[] = {"p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "window",
                                       "ttft_p50_ms", "ttft_p90_ms", "ttft_p95_ms", "ttft_p99_ms", "ttft_p999_ms",
                                       "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms", "tpot_p99_ms", "tpot_p999_ms"};
    slo->n_targets = 0;
    slo->ttft = slo->tpot = (fs_slo_target){0};
    slo->window_s = default_window_s;
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, svc, "slo", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "slo");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    /* Targets in quantile order, whatever the order in the file. */
    for (size_t i = 0; rc == FS_OK && i < FS_SLO_MAX_TARGETS; i++) {
        double ms = -1;
        rc = fs_jpath_get_number(p, obj, slo_keys[i].key, false, FS_JPATH_POSITIVE, &ms);
        if (rc == FS_OK && ms > 0) {
            slo->targets[slo->n_targets].quantile = slo_keys[i].quantile;
            slo->targets[slo->n_targets].threshold_s = ms / 1000.0;
            slo->n_targets++;
        }
    }
    if (rc == FS_OK)
        rc = parse_llm_target(p, obj, "ttft", &slo->ttft);
    if (rc == FS_OK)
        rc = parse_llm_target(p, obj, "tpot", &slo->tpot);
    if (rc == FS_OK && !llm && (slo->ttft.threshold_s > 0 || slo->tpot.threshold_s > 0))
        rc = fs_jpath_fail(p, "TTFT and TPOT targets need an LLM engine: \"batching\": {\"kind\": \"continuous\"}");
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "window", false, FS_JPATH_POSITIVE, &slo->window_s);
    if (rc == FS_OK && slo->n_targets == 0 && slo->ttft.threshold_s == 0 && slo->tpot.threshold_s == 0) {
        char list[128];
        fs_jpath_list(keys, FS_SLO_MAX_TARGETS, list, sizeof list);
        rc = fs_jpath_fail(p, "expected at least one latency target (%s%s), got none", list,
                           llm ? ", ttft_p99_ms, tpot_p99_ms, ..." : "");
    }
    fs_jpath_pop(p, mark);
    return rc;
}

static void pool_list(const fs_scenario *s, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_pools && len < size; i++) {
        int w = snprintf(buf + len, size - len, "%s\"%s\"", i ? ", " : "", s->pools[i].name);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static int parse_service_pool(fs_jpath *p, const json_t *svc, const parse_ctx *c, size_t *pool)
{
    const fs_scenario *s = c->s;
    char names[512];
    pool_list(s, names, sizeof names);
    char in_policy[FS_GPU_NAME_MAX + 64] = "";
    if (c->policy)
        snprintf(in_policy, sizeof in_policy, " in policy \"%.*s\"", FS_GPU_NAME_MAX, c->policy);
    const char *name = NULL;
    int rc = fs_jpath_get_string(p, svc, "pool", false, false, &name);
    if (rc != FS_OK)
        return rc;
    if (name == NULL) {
        if (s->n_pools == 1) {
            *pool = 0;
            return FS_OK;
        }
        return fs_jpath_fail(p,
                             "missing required key \"pool\" (needed when there is more than one "
                             "pool%s: %s)",
                             in_policy, names);
    }
    const char *near = NULL;
    size_t near_d = SIZE_MAX;
    for (size_t i = 0; i < s->n_pools; i++) {
        if (strcmp(name, s->pools[i].name) == 0) {
            *pool = i;
            return FS_OK;
        }
        fs_jpath_nearer(name, s->pools[i].name, &near_d, &near);
    }
    size_t limit = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
    size_t mark = fs_jpath_push_key(p, "pool");
    char got[128];
    fs_jpath_describe(json_object_get(svc, "pool"), got, sizeof got);
    if (near != NULL && near_d <= limit)
        rc = fs_jpath_fail(p, "expected the name of a pool%s (%s), got %s (did you mean \"%s\"?)",
                           in_policy, names, got, near);
    else
        rc = fs_jpath_fail(p, "expected the name of a pool%s (%s), got %s", in_policy, names, got);
    fs_jpath_pop(p, mark);
    return rc;
}

/* Most decode replicas a disaggregated service may have (as "replicas"). */
#define MAX_DECODE_REPLICAS 100000

/* "disaggregation": {"decode": {"pool", "replicas"}, "link": {"bandwidth_gb_s",
 * "latency_us"}} on an LLM service with a fixed replica count. */
static int parse_disaggregation(fs_jpath *p, const json_t *svc, const parse_ctx *c, fs_service_spec *out)
{
    static const char *const keys[] = {"decode", "link"};
    static const char *const decode_keys[] = {"pool", "replicas"};
    static const char *const link_keys[] = {"bandwidth_gb_s", "latency_us"};
    json_t *obj = NULL, *decode = NULL, *link = NULL;
    int rc = fs_jpath_get_object(p, svc, "disaggregation", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "disaggregation");
    if (!json_is_object(obj))
        rc = fs_jpath_expected(p, obj, "an object {\"decode\": {...}, \"link\": {...}}");
    else if (out->batching.kind != FS_BATCHING_CONTINUOUS)
        rc = fs_jpath_fail(p, "prefill/decode disaggregation needs an LLM engine: \"batching\": "
                              "{\"kind\": \"continuous\", ...}");
    else if (out->autoscale.enabled)
        rc = fs_jpath_fail(p, "a disaggregated service has fixed replica groups: give \"replicas\" as a "
                              "number (autoscaling two groups is not modelled)");
    if (rc == FS_OK)
        rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_object(p, obj, "decode", true, &decode);
    if (rc == FS_OK) {
        size_t m = fs_jpath_push_key(p, "decode");
        uint64_t n = 0;
        rc = json_is_object(decode) ? fs_jpath_check_keys(p, decode, decode_keys, COUNT(decode_keys))
                                    : fs_jpath_expected(p, decode, "an object {\"pool\", \"replicas\"}");
        if (rc == FS_OK)
            rc = parse_service_pool(p, decode, c, &out->decode_pool);
        if (rc == FS_OK)
            rc = fs_jpath_get_uint(p, decode, "replicas", true, 1, MAX_DECODE_REPLICAS, &n);
        out->decode_replicas = (uint32_t)n;
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK)
        rc = fs_jpath_get_object(p, obj, "link", true, &link);
    if (rc == FS_OK) {
        size_t m = fs_jpath_push_key(p, "link");
        double gb_s = 0, us = 0;
        rc = json_is_object(link) ? fs_jpath_check_keys(p, link, link_keys, COUNT(link_keys))
                                  : fs_jpath_expected(p, link, "an object {\"bandwidth_gb_s\", \"latency_us\"}");
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, link, "bandwidth_gb_s", true, FS_JPATH_POSITIVE, &gb_s);
        if (rc == FS_OK)
            rc = fs_jpath_get_number(p, link, "latency_us", false, FS_JPATH_NONNEG, &us);
        out->link_bandwidth_Bps = gb_s * 1e9;
        out->link_latency_s = us * 1e-6;
        fs_jpath_pop(p, m);
    }
    if (rc != FS_OK)
        out->decode_replicas = 0;
    fs_jpath_pop(p, mark);
    return rc;
}

/* "gpu_share" and "gpu_share_kind": required and allowed on a fractional
 * pool only, where a replica is a compute share and a memory quota (its
 * memory_gb, so required too); an LLM engine is not modelled there. */
static int parse_gpu_share(fs_jpath *p, const json_t *svc, const fs_pool_spec *pool, fs_service_spec *out)
{
    json_t *share = json_object_get(svc, "gpu_share"), *kind = json_object_get(svc, "gpu_share_kind");
    out->gpu_share = 0;
    out->share_kind = FS_SHARE_COMPUTE;
    const char *bad = NULL, *why = NULL;
    if (pool->partitioning != FS_PARTITION_FRACTIONAL) {
        bad = share != NULL ? "gpu_share" : kind != NULL ? "gpu_share_kind" : NULL;
        if (bad == NULL)
            return FS_OK;
        why = "a compute share is asked on a fractional pool only (\"fractional\": {...}); pool \"%s\" "
              "is not one: remove it, or give this policy's service a fractional pool";
    } else if (out->batching.kind == FS_BATCHING_CONTINUOUS) {
        bad = "pool";
        why = "an LLM engine (\"batching\": {\"kind\": \"continuous\"}) on a fractional pool (\"%s\") "
              "is not modelled; use whole GPUs, MIG or time slicing";
    } else if (share == NULL) {
        why = "a replica on fractional pool \"%s\" needs \"gpu_share\": its share of the GPU's compute, "
              "0.1 to 1";
    } else if (out->memory_gb <= 0) {
        bad = "gpu_share";
        why = "a replica on fractional pool \"%s\" also needs \"memory_gb\": its memory quota, enforced";
    }
    if (why != NULL) {
        size_t mark = bad ? fs_jpath_push_key(p, bad) : 0;
        int rc = fs_jpath_fail(p, why, pool->name);
        if (bad)
            fs_jpath_pop(p, mark);
        return rc;
    }
    int rc = fs_jpath_get_number(p, svc, "gpu_share", true, FS_JPATH_POSITIVE, &out->gpu_share);
    if (rc == FS_OK && (out->gpu_share < FS_MPS_MIN_SHARE || out->gpu_share > 1)) {
        size_t mark = fs_jpath_push_key(p, "gpu_share");
        rc = fs_jpath_expected(p, share, "a share of the GPU's compute from %g (the smallest measured: "
                                         "calibrate/README.md) to 1", FS_MPS_MIN_SHARE);
        fs_jpath_pop(p, mark);
    }
    int k = FS_SHARE_COMPUTE;
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, svc, "gpu_share_kind", "a kind of work", fs_mps_kind_names,
                                     FS_SHARE_KINDS, &k);
    out->share_kind = (fs_share_kind)k;
    return rc;
}

int fs__scenario_parse_service(fs_jpath *p, const json_t *svc, size_t index, parse_ctx *c)
{
    static const char *const keys[] = {"name",         "tenant",        "pool",        "arrivals",
                                       "service_time", "replicas",      "queue_limit", "slo",
                                       "memory_gb",    "reference_gpu", "sm_exponent", "batching",
                                       "disaggregation", "gpu_share",   "gpu_share_kind",
                                       "region",         "spill"};
    fs_scenario *s = c->s;
    fs_service_spec *out = &s->services[index];
    if (!json_is_object(svc))
        return fs_jpath_expected(p, svc, "an object describing a service");
    int rc = fs_jpath_check_keys(p, svc, keys, COUNT(keys));
    const char *name = NULL, *tenant = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, svc, "name", true, true, &name);
    /* O(n^2) over services, which number in the tens. */
    for (size_t j = 0; rc == FS_OK && j < index; j++) {
        if (strcmp(s->services[j].name, name) == 0) {
            size_t mark = fs_jpath_push_key(p, "name");
            rc = fs_jpath_fail(p, "duplicate service name \"%s\" (also services[%zu])", name, j);
            fs_jpath_pop(p, mark);
        }
    }
    if (rc == FS_OK)
        rc = fs__scenario_dup_into(p, &out->name, name);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, svc, "tenant", false, true, &tenant);
    if (rc == FS_OK)
        rc = fs__scenario_dup_into(p, &out->tenant, tenant != NULL ? tenant : name);
    if (rc == FS_OK)
        rc = parse_service_pool(p, svc, c, &out->pool);
    if (rc == FS_OK)
        rc = fs__scenario_region_ref(p, svc, s, true, &out->region);
    if (rc == FS_OK) /* its traffic in its region's local time */
        out->arrivals.utc_offset_s = s->regions[out->region].utc_offset_s;
    if (rc == FS_OK)
        rc = fs__scenario_parse_arrivals(p, svc, s->horizon_s, &out->arrivals);
    if (rc == FS_OK)
        rc = parse_replicas(p, svc, out);
    if (rc == FS_OK)
        rc = fs__scenario_parse_batching(p, svc, c, out);
    /* Only an LLM engine reads a request's prefix: elsewhere the column
     * would be ignored, and a run would look as if it had used it. */
    if (rc == FS_OK && out->batching.kind != FS_BATCHING_CONTINUOUS && out->arrivals.trace &&
        out->arrivals.trace->prefix_col) {
        size_t mark = fs_jpath_push_key(p, "arrivals");
        fs_jpath_push_key(p, "trace");
        fs_jpath_push_key(p, "prefix");
        rc = fs_jpath_fail(p, "a prefix column is read only by an LLM service (\"batching\": {\"kind\": "
                              "\"continuous\"}); this service would ignore it");
        fs_jpath_pop(p, mark);
    }
    if (rc == FS_OK)
        rc = parse_disaggregation(p, svc, c, out);
    if (rc == FS_OK)
        rc = fs__scenario_check_service_region(p, c, out);
    if (rc == FS_OK)
        rc = parse_service_time(p, svc, out);
    out->queue_limit = FS_QUEUE_UNLIMITED;
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, svc, "queue_limit", false, 0, UINT64_MAX, &out->queue_limit);
    if (rc == FS_OK)
        rc = parse_slo(p, svc, s->window_s, out->batching.kind == FS_BATCHING_CONTINUOUS, &out->slo);
    out->memory_gb = 0;
    if (rc == FS_OK)
        rc = fs__scenario_get_memory(p, svc, "memory_gb", FS_JPATH_POSITIVE, &out->memory_gb);
    if (rc == FS_OK) {
        /* By default the service time was measured on the GPUs it runs on. */
        out->reference_gpu = s->pools[out->pool].gpu_type;
        rc = fs__scenario_parse_gpu_ref(p, c, svc, "reference_gpu", false, &out->reference_gpu,
                                        NULL);
    }
    out->sm_exponent = 1.0;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, svc, "sm_exponent", false, FS_JPATH_NONNEG, &out->sm_exponent);
    if (rc == FS_OK)
        rc = parse_gpu_share(p, svc, &s->pools[out->pool], out);
    /* An LLM service's units are checked later (fs__scenario_check_continuous),
     * once every GPU type has its calibration profile. */
    return rc;
}

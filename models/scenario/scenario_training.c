/*
 * scenario_training — the "training" array: streams of gang-scheduled jobs,
 * each with how its jobs are submitted ("submit": times, daily clock times, a
 * Poisson rate or a job trace), their size and work, checkpointing, and
 * what a preemption costs them.
 */
#include "scenario_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"

static int double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* "at": [durations from t = 0], sorted. */
static int parse_submit_at(fs_jpath *p, const json_t *submit, fs_training_spec *out)
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, submit, "at", false, true, &list);
    if (rc != FS_OK || list == NULL)
        return rc;
    size_t n = json_array_size(list);
    out->submit_at_s = calloc(n, sizeof *out->submit_at_s);
    if (out->submit_at_s == NULL)
        return fs_jpath_oom(p);
    out->n_submit_at = n;
    size_t mark = fs_jpath_push_key(p, "at");
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = fs_jpath_duration(p, json_array_get(list, i), FS_JPATH_NONNEG, &out->submit_at_s[i]);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        qsort(out->submit_at_s, n, sizeof *out->submit_at_s, double_cmp);
    return rc;
}

/* "daily_at": ["HH:MM", ...]: up to 24 times of day, sorted. */
static int parse_submit_daily(fs_jpath *p, const json_t *submit, fs_training_spec *out)
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, submit, "daily_at", false, true, &list);
    if (rc != FS_OK || list == NULL)
        return rc;
    size_t n = json_array_size(list), cap = COUNT(out->daily_at_s);
    size_t mark = fs_jpath_push_key(p, "daily_at");
    if (n > cap)
        rc = fs_jpath_fail(p, "expected at most %zu clock times, got %zu", cap, n);
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        double t = 0;
        rc = fs__scenario_clock(p, json_array_get(list, i), &t);
        out->daily_at_s[i] = t;
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK) {
        out->n_daily = n;
        qsort(out->daily_at_s, n, sizeof out->daily_at_s[0], double_cmp);
    }
    return rc;
}

static const char *const priority_names[] = {"production", "experiment"};

/* A job trace's "priorities": {"TEXT": "production" | "experiment", ...},
 * the lane of the rows whose priority cell reads TEXT; the cursor is on
 * the trace object.  It needs a priority column to read. */
static int parse_priorities(fs_jpath *p, const json_t *trace, fs_training_spec *out)
{
    json_t *map = json_object_get(trace, "priorities");
    if (map == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "priorities");
    int rc = json_is_object(map) && json_object_size(map) > 0
                 ? FS_OK
                 : fs_jpath_expected(p, map, "an object of priority texts to \"production\" or \"experiment\"");
    if (rc == FS_OK && out->trace->priority_col == NULL)
        rc = fs_jpath_fail(p, "needs a priority column to read (\"priority\": COLUMN, or a preset that has one)");
    size_t n = rc == FS_OK ? json_object_size(map) : 0;
    if (n && (!(out->priority_texts = calloc(n, sizeof *out->priority_texts)) ||
              !(out->priority_lanes = calloc(n, sizeof *out->priority_lanes))))
        rc = fs_jpath_oom(p);
    const char *text;
    json_t *lane;
    /* A failed check above leaves nothing to read: the loop sees no key. */
    json_object_foreach(rc == FS_OK ? map : NULL, text, lane) {
        size_t m = fs_jpath_push_key(p, text);
        size_t k = 0;
        const char *name = json_is_string(lane) ? json_string_value(lane) : "";
        while (k < COUNT(priority_names) && strcmp(name, priority_names[k]) != 0)
            k++;
        if (k == COUNT(priority_names))
            rc = fs_jpath_expected(p, lane, "\"production\" or \"experiment\"");
        else if (!(out->priority_texts[out->n_priorities] = strdup(text)))
            rc = fs_jpath_oom(p);
        else
            out->priority_lanes[out->n_priorities++] = k == 0 ? FS_LANE_TRAINING : FS_LANE_EXPERIMENT;
        fs_jpath_pop(p, m);
        if (rc != FS_OK)
            break;
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* poisson_per_hour's shape, when "submit" gives any of a service's rate
 * keys: parsed by the services' own parser (fs__scenario_parse_rate_shape),
 * so a profile, trend, noise or groups of jobs read as a service's do.  An
 * "mmpp" is refused: its states' rates are requests a second, a service's
 * unit, and "noise" clusters submissions as well. */
/* "gang": {"empirical": {"samples": [1, 1, 2, 8, ...]}} or {"deterministic":
 * {"value": 4}}: a job mix's gang sizes, whole numbers >= 1.  Only bounded
 * kinds: the largest draw (*gang) is held to the pools like a fixed gang,
 * so no job can ask for a gang no pool holds. */
static int parse_gang_mix(fs_jpath *p, const json_t *job, fs_training_spec *out, uint64_t *gang)
{
    int rc = fs__scenario_parse_count_dist(p, job, "gang", true, &out->gang_mix);
    if (rc != FS_OK)
        return rc;
    out->has_gang_mix = true;
    const fs_dist *d = &out->gang_mix;
    size_t mark = fs_jpath_push_key(p, "gang");
    double largest = d->kind == FS_DIST_DETERMINISTIC ? d->a : 0;
    if (d->kind != FS_DIST_DETERMINISTIC && d->kind != FS_DIST_EMPIRICAL)
        rc = fs_jpath_fail(p, "expected \"empirical\" or \"deterministic\" gang sizes (a bounded mix: the "
                              "largest gang must fit a pool)");
    for (size_t k = 0; rc == FS_OK && k < (d->kind == FS_DIST_EMPIRICAL ? d->n : 0); k++)
        largest = fmax(largest, d->samples[k]);
    bool whole = true;
    for (size_t k = 0; rc == FS_OK && k < (d->kind == FS_DIST_EMPIRICAL ? d->n : 1); k++) {
        double v = d->kind == FS_DIST_EMPIRICAL ? d->samples[k] : d->a;
        whole &= v >= 1 && v == floor(v) && v <= FS_SCENARIO_MAX_GPUS;
    }
    if (rc == FS_OK && !whole)
        rc = fs_jpath_fail(p, "gang sizes must be whole numbers from 1 to %d", FS_SCENARIO_MAX_GPUS);
    /* Converted only once known whole and in range (a refused 1e308 would
     * not fit an integer). */
    *gang = rc == FS_OK ? (uint64_t)largest : 1;
    fs_jpath_pop(p, mark);
    return rc;
}

/* One class of "run_time_by_gang": {"gangs": [whole numbers], "run_time":
 * DIST}; the cursor is on the class.  A size listed twice is refused: it
 * says nothing and hides a typo. */
static int parse_run_time_class(fs_jpath *p, const json_t *obj, struct fs_run_time_class *out)
{
    static const char *const keys[] = {"gangs", "run_time"};
    if (!json_is_object(obj))
        return fs_jpath_expected(p, obj, "an object {\"gangs\": [sizes], \"run_time\": {...}}");
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    json_t *list = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_array(p, obj, "gangs", true, true, &list);
    size_t n = rc == FS_OK ? json_array_size(list) : 0;
    if (n && !(out->gangs = calloc(n, sizeof *out->gangs)))
        rc = fs_jpath_oom(p);
    size_t mark = fs_jpath_push_key(p, "gangs");
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t m = fs_jpath_push_index(p, i);
        uint64_t gang = 0;
        rc = fs_jpath_uint(p, json_array_get(list, i), 1, FS_SCENARIO_MAX_GPUS, &gang);
        for (size_t j = 0; rc == FS_OK && j < out->n_gangs; j++)
            if (out->gangs[j] == gang)
                rc = fs_jpath_fail(p, "gang size %llu is listed twice", (unsigned long long)gang);
        out->gangs[out->n_gangs++] = (uint32_t)gang;
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        rc = fs__scenario_parse_dist(p, obj, "run_time", true, &out->run_time);
    return rc;
}

/* The class of run_time_by_gang listing gang, from class `from` on; n when
 * none does. */
static size_t run_time_class_of(const fs_training_spec *spec, size_t from, uint32_t gang)
{
    for (size_t c = from; c < spec->n_run_time_by_gang; c++)
        for (size_t j = 0; j < spec->run_time_by_gang[c].n_gangs; j++)
            if (spec->run_time_by_gang[c].gangs[j] == gang)
                return c;
    return spec->n_run_time_by_gang;
}

const fs_dist *fs_scenario_job_run_time(const fs_training_spec *spec, uint32_t gang)
{
    if (spec->has_run_time)
        return &spec->run_time;
    size_t c = run_time_class_of(spec, 0, gang);
    return c < spec->n_run_time_by_gang ? &spec->run_time_by_gang[c].run_time : NULL;
}

/* Every size the stream's gang can take (its fixed gang, or each sample
 * of its mix) in a class, and no size in two: each job has one law to
 * draw from.  The cursor is on "run_time_by_gang". */
static int check_run_time_classes(fs_jpath *p, const fs_training_spec *spec)
{
    size_t n = spec->n_run_time_by_gang;
    for (size_t c = 0; c < n; c++)
        for (size_t j = 0; j < spec->run_time_by_gang[c].n_gangs; j++) {
            uint32_t gang = spec->run_time_by_gang[c].gangs[j];
            size_t also = run_time_class_of(spec, c + 1, gang);
            if (also < n)
                return fs_jpath_fail(p, "gang size %u is in two classes ([%zu] and [%zu]): a job's run time must "
                                        "have one law", (unsigned)gang, c, also);
        }
    const fs_dist *mix = spec->has_gang_mix ? &spec->gang_mix : NULL;
    size_t sizes = mix && mix->kind == FS_DIST_EMPIRICAL ? mix->n : 1;
    for (size_t k = 0; k < sizes; k++) {
        uint32_t gang = !mix ? spec->gang : (uint32_t)(mix->kind == FS_DIST_EMPIRICAL ? mix->samples[k] : mix->a);
        if (run_time_class_of(spec, 0, gang) == n)
            return fs_jpath_fail(p, "gang size %u (the stream's \"gang\" can take it) is in no class: every size "
                                    "needs one", (unsigned)gang);
    }
    return FS_OK;
}

/* "run_time_by_gang": [{"gangs": [...], "run_time": DIST}, ...], instead
 * of "run_time" or "work_gpu_hours"; read after "gang". */
static int parse_run_time_by_gang(fs_jpath *p, const json_t *job, fs_training_spec *out)
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, job, "run_time_by_gang", false, true, &list);
    if (rc != FS_OK || list == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "run_time_by_gang");
    const char *other = json_object_get(job, "run_time")         ? "run_time"
                        : json_object_get(job, "work_gpu_hours") ? "work_gpu_hours"
                                                                 : NULL;
    if (other)
        rc = fs_jpath_fail(p, "expected \"run_time_by_gang\" or \"%s\", not both: each says how long a job "
                              "computes", other);
    size_t n = json_array_size(list);
    if (rc == FS_OK && !(out->run_time_by_gang = calloc(n, sizeof *out->run_time_by_gang)))
        rc = fs_jpath_oom(p);
    /* Counted as they are allocated, so the scenario's destroy frees a
     * class that failed half read. */
    for (size_t c = 0; rc == FS_OK && c < n; c++) {
        size_t m = fs_jpath_push_index(p, c);
        out->n_run_time_by_gang++;
        rc = parse_run_time_class(p, json_array_get(list, c), &out->run_time_by_gang[c]);
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK)
        rc = check_run_time_classes(p, out);
    fs_jpath_pop(p, mark);
    return rc;
}

/* "failures": {"probability", "after", "retries", "retry_delay"} and
 * "cancellations": {"probability", "after"}: see fs_training_spec. */
static int parse_failures(fs_jpath *p, const json_t *job, fs_training_spec *out)
{
    static const char *const fail_keys[] = {"probability", "after", "retries", "retry_delay"};
    static const char *const cancel_keys[] = {"probability", "after"};
    const char *const names[] = {"failures", "cancellations"};
    double *probability[] = {&out->fail_probability, &out->cancel_probability};
    fs_dist *after[] = {&out->fail_after, &out->cancel_after};
    out->fail_probability = out->cancel_probability = out->retry_delay_s = 0;
    out->retries = 0;
    int rc = FS_OK;
    for (int k = 0; rc == FS_OK && k < 2; k++) {
        json_t *obj = NULL;
        rc = fs_jpath_get_object(p, job, names[k], false, &obj);
        if (rc != FS_OK || obj == NULL)
            continue;
        size_t mark = fs_jpath_push_key(p, names[k]);
        rc = k == 0 ? fs_jpath_check_keys(p, obj, fail_keys, COUNT(fail_keys))
                    : fs_jpath_check_keys(p, obj, cancel_keys, COUNT(cancel_keys));
        if (rc == FS_OK)
            rc = fs__scenario_get_bounded(p, obj, "probability", true, FS_JPATH_NONNEG, 0, 1, "", probability[k]);
        if (rc == FS_OK)
            rc = fs__scenario_parse_dist(p, obj, "after", true, after[k]);
        uint64_t retries = 0;
        if (rc == FS_OK && k == 0)
            rc = fs_jpath_get_uint(p, obj, "retries", false, 0, 1000, &retries);
        out->retries = k == 0 ? (uint32_t)retries : out->retries;
        if (rc == FS_OK && k == 0)
            rc = fs_jpath_get_duration(p, obj, "retry_delay", false, FS_JPATH_NONNEG, &out->retry_delay_s);
        fs_jpath_pop(p, mark);
    }
    return rc;
}

static int parse_submit_shape(fs_jpath *p, const json_t *obj, double horizon_s, fs_training_spec *out)
{
    static const char *const shape_keys[] = {"diurnal", "weekday",      "weekend", "bursts",
                                             "growth",  "daily_levels", "noise",   "groups"};
    const char *given = NULL;
    for (size_t k = 0; given == NULL && k < COUNT(shape_keys); k++)
        if (json_object_get(obj, shape_keys[k]))
            given = shape_keys[k];
    if (json_object_get(obj, "mmpp")) {
        size_t m = fs_jpath_push_key(p, "mmpp");
        int rc = fs_jpath_fail(p, "not for job submissions (its states' \"rps\" are a service's unit): use "
                                  "\"noise\" to cluster them");
        fs_jpath_pop(p, m);
        return rc;
    }
    if (given == NULL)
        return FS_OK;
    if (out->poisson_per_hour <= 0)
        return fs_jpath_fail(p, "\"%s\" shapes a Poisson stream: give \"poisson_per_hour\" too", given);
    if (!(out->submit_shape = calloc(1, sizeof *out->submit_shape)))
        return fs_jpath_oom(p);
    out->submit_shape->base_rps = out->poisson_per_hour / 3600.0;
    return fs__scenario_parse_rate_shape(p, obj, horizon_s, out->submit_shape);
}

static int parse_submit(fs_jpath *p, const json_t *job, double horizon_s, fs_training_spec *out)
{
    static const char *const keys[] = {"at",      "daily_at", "poisson_per_hour", "trace",  "diurnal", "weekday",
                                       "weekend", "bursts",   "growth",           "daily_levels", "noise",
                                       "groups",  "mmpp"};
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, job, "submit", true, &obj);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "submit");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    json_t *trace = json_object_get(obj, "trace");
    if (rc == FS_OK && trace) {
        static const char *const trace_keys[] = {"file",  "format",   "preset", "time",       "time_format",
                                                 "gpus",  "duration", "end",    "priority",   "tenant",
                                                 "rate_scale", "shift", "repeat", "tolerance", "where",
                                                 "priorities"};
        size_t m = fs_jpath_push_key(p, "trace");
        rc = json_object_size(obj) != 1 ? fs_jpath_fail(p, "expected \"trace\" alone in \"submit\"")
             : json_is_object(trace)    ? fs_jpath_check_keys(p, trace, trace_keys, COUNT(trace_keys))
                                        : fs_jpath_expected(p, trace, "an object naming a job trace file");
        if (rc == FS_OK)
            rc = fs__scenario_parse_trace_spec(p, trace, FS_TRACE_JOBS, &out->trace);
        if (rc == FS_OK)
            rc = parse_priorities(p, trace, out);
        fs_jpath_pop(p, m);
        fs_jpath_pop(p, mark);
        return rc;
    }
    if (rc == FS_OK && json_object_size(obj) == 0) {
        static const char *const ways[] = {"at", "daily_at", "poisson_per_hour", "trace"};
        char list[128];
        fs_jpath_list(ways, COUNT(ways), list, sizeof list);
        rc = fs_jpath_fail(p, "expected at least one way to submit jobs (%s), got none", list);
    }
    if (rc == FS_OK)
        rc = parse_submit_at(p, obj, out);
    if (rc == FS_OK)
        rc = parse_submit_daily(p, obj, out);
    out->poisson_per_hour = 0;
    if (rc == FS_OK)
        rc = fs__scenario_get_capped(p, obj, "poisson_per_hour", false, FS_JPATH_POSITIVE,
                                     FS_SCENARIO_MAX_RATE_RPS * 3600, "jobs an hour",
                                     &out->poisson_per_hour);
    if (rc == FS_OK)
        rc = parse_submit_shape(p, obj, horizon_s, out);
    fs_jpath_pop(p, mark);
    return rc;
}

/* "checkpoint": {"every", "write"}; absent, the job never checkpoints. */
static int parse_checkpoint(fs_jpath *p, const json_t *job, fs_training_spec *out)
{
    static const char *const keys[] = {"every", "write"};
    out->checkpoint_every_s = out->checkpoint_write_s = 0;
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, job, "checkpoint", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "checkpoint");
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs__scenario_get_floored_duration(p, obj, "every", true,
                                               FS_SCENARIO_MIN_CHECKPOINT_EVERY_S,
                                               &out->checkpoint_every_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "write", true, FS_JPATH_NONNEG,
                                   &out->checkpoint_write_s);
    fs_jpath_pop(p, mark);
    return rc;
}


/* Training streams and services share one namespace, so a name in results
 * always means one thing.  O(n^2), over tens of names. */
static int check_training_name(fs_jpath *p, const fs_scenario *s, size_t index, const char *name)
{
    char also[64] = "";
    for (size_t j = 0; also[0] == '\0' && j < s->n_services; j++)
        if (strcmp(s->services[j].name, name) == 0)
            snprintf(also, sizeof also, "services[%zu]", j);
    for (size_t j = 0; also[0] == '\0' && j < index; j++)
        if (strcmp(s->training[j].name, name) == 0)
            snprintf(also, sizeof also, "training[%zu]", j);
    if (also[0] == '\0')
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "name");
    int rc = fs_jpath_fail(p, "duplicate name \"%s\" (also %s; services and training streams "
                              "share one set of names)",
                           name, also);
    fs_jpath_pop(p, mark);
    return rc;
}

/* The most units (whole GPUs, MIG instances or time-sliced seats) one pool
 * can ever hold, at its largest size, and that pool in *which; and in *all
 * the units of every pool together.  The fleet grants a gang from one pool,
 * or with "across_pools" from several, so a bigger gang can never start. */
static uint64_t largest_pool_units(const fs_scenario *s, size_t *which, uint64_t *all)
{
    uint64_t most = 0;
    *which = 0;
    *all = 0;
    for (size_t i = 0; i < s->n_pools; i++) {
        const fs_pool_spec *pool = &s->pools[i];
        uint64_t per_gpu = pool->partitioning == FS_PARTITION_MIG           ? pool->mig.n
                           : pool->partitioning == FS_PARTITION_TIME_SLICED ? pool->time_slicing.tenants
                                                                            : 1;
        for (size_t k = 0; pool->mig_plan && k < pool->mig_plan->n_layouts; k++)
            if (pool->mig_plan->layouts[k].n > per_gpu) /* the largest layout it may switch to */
                per_gpu = pool->mig_plan->layouts[k].n;
        uint64_t units = (uint64_t)(pool->max_gpus > pool->gpus ? pool->max_gpus : pool->gpus) * per_gpu;
        *all += units;
        if (units > most) {
            most = units;
            *which = i;
        }
    }
    return most;
}

static int check_gang_fits(fs_jpath *p, const fs_scenario *s, uint64_t gang, bool across_pools, const char *policy)
{
    size_t which;
    uint64_t all, most = largest_pool_units(s, &which, &all);
    if (gang <= (across_pools ? all : most) || s->n_pools == 0)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "gang");
    /* ' of policy "NAME"' after "pool(s)" in a policy's variant */
    const char *of = policy ? " of policy \"" : "", *name = policy ? policy : "", *end = policy ? "\"" : "";
    int rc = across_pools ? fs_jpath_fail(p, "a gang of %llu units can never start: the pools%s%s%s hold at most %llu "
                                             "units together",
                                          (unsigned long long)gang, of, name, end, (unsigned long long)all)
                          : fs_jpath_fail(p, "a gang of %llu units can never start: the largest pool%s%s%s (\"%s\") "
                                             "holds at most %llu",
                                          (unsigned long long)gang, of, name, end, s->pools[which].name,
                                          (unsigned long long)most);
    fs_jpath_pop(p, mark);
    return rc;
}

static int parse_training_stream(fs_jpath *p, const json_t *job, size_t index, parse_ctx *c)
{
    static const char *const keys[] = {"name",        "tenant",         "submit",
                                       "gang",        "work_gpu_hours", "state_gb_per_gpu",
                                       "checkpoint",  "preemptible",    "priority",
                                       "on_eviction", "run_time",       "failures",
                                       "cancellations", "run_time_by_gang", "across_pools",
                                       "region",      "after",          "deploy",
                                       "release"};
    static const char *const eviction_names[] = {"drop", "save"};
    fs_scenario *s = c->s;
    fs_training_spec *out = &s->training[index];
    out->after = SIZE_MAX;
    if (!json_is_object(job))
        return fs_jpath_expected(p, job, "an object describing a training stream");
    int rc = fs_jpath_check_keys(p, job, keys, COUNT(keys));
    const char *name = NULL, *tenant = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, job, "name", true, true, &name);
    if (rc == FS_OK)
        rc = check_training_name(p, s, index, name);
    if (rc == FS_OK)
        rc = fs__scenario_dup_into(p, &out->name, name);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, job, "tenant", false, true, &tenant);
    if (rc == FS_OK)
        rc = fs__scenario_dup_into(p, &out->tenant, tenant != NULL ? tenant : name);
    if (rc == FS_OK && json_object_get(job, "deploy")) /* a rollout, not jobs (scenario_pipeline.c) */
        return fs__scenario_parse_deploy(p, job, s, out);
    json_t *after = json_object_get(job, "after");
    if (rc == FS_OK && after)
        rc = fs__scenario_parse_after(p, job, after, out);
    else if (rc == FS_OK)
        rc = parse_submit(p, job, s->horizon_s, out);
    /* A trace gives each job its own gang and work. */
    bool traced = out->trace != NULL;
    if (rc == FS_OK && traced &&
        (json_object_get(job, "gang") || json_object_get(job, "work_gpu_hours") || json_object_get(job, "run_time") ||
         json_object_get(job, "run_time_by_gang")))
        rc = fs_jpath_fail(p, "a traced stream takes \"gang\" and its run time from its trace's rows");
    uint64_t gang = 1;
    out->work_gpu_hours = 1;
    if (rc == FS_OK && json_is_object(json_object_get(job, "gang")))
        rc = parse_gang_mix(p, job, out, &gang);
    else if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, job, "gang", !traced, 1, FS_SCENARIO_MAX_GPUS, &gang);
    out->gang = (uint32_t)gang;
    /* Read before the gang is held to the pools: a gang split across them
     * may be as large as all of them together. */
    out->across_pools = false;
    if (rc == FS_OK)
        rc = fs__scenario_get_bool(p, job, "across_pools", &out->across_pools);
    if (rc == FS_OK && !traced)
        rc = check_gang_fits(p, s, gang, out->across_pools, c->policy);
    if (rc == FS_OK && json_object_get(job, "run_time") && json_object_get(job, "work_gpu_hours"))
        rc = fs_jpath_fail(p, "expected \"work_gpu_hours\" or \"run_time\", not both: each says how long a job "
                              "computes");
    if (rc == FS_OK)
        rc = fs__scenario_parse_dist(p, job, "run_time", false, &out->run_time);
    out->has_run_time = rc == FS_OK && json_object_get(job, "run_time") != NULL;
    if (rc == FS_OK)
        rc = parse_run_time_by_gang(p, job, out);
    bool run_time = out->has_run_time || out->n_run_time_by_gang > 0;
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, job, "work_gpu_hours", !traced && !run_time, FS_JPATH_POSITIVE,
                                 &out->work_gpu_hours);
    if (rc == FS_OK)
        rc = parse_failures(p, job, out);
    out->state_gb_per_gpu = 0;
    if (rc == FS_OK)
        rc = fs__scenario_get_memory(p, job, "state_gb_per_gpu", FS_JPATH_NONNEG, &out->state_gb_per_gpu);
    if (rc == FS_OK)
        rc = parse_checkpoint(p, job, out);
    out->preemptible = false;
    if (rc == FS_OK)
        rc = fs__scenario_get_bool(p, job, "preemptible", &out->preemptible);
    int prio = 0;
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, job, "priority", "a training priority", priority_names,
                        COUNT(priority_names), &prio);
    out->lane = prio == 0 ? FS_LANE_TRAINING : FS_LANE_EXPERIMENT;
    int eviction = 0;
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, job, "on_eviction", "an eviction mode", eviction_names,
                        COUNT(eviction_names), &eviction);
    out->save_on_eviction = eviction == 1;
    if (rc == FS_OK)
        rc = fs__scenario_training_region(p, job, s, out);
    if (rc == FS_OK)
        rc = fs__scenario_parse_release(p, job, s, out);
    return rc;
}

/* training[index]; an error in one this policy patched says so. */
static int parse_patched_stream(fs_jpath *p, const json_t *job, size_t index, parse_ctx *c)
{
    int rc = parse_training_stream(p, job, index, c);
    if (rc == FS_ERR_INPUT)
        fs__scenario_blame_training_patch(p, job, c);
    return rc;
}

/* "training": optional, possibly empty; read after "services" so names can
 * be checked against them. */
int fs__scenario_parse_training(fs_jpath *p, const json_t *root, parse_ctx *c)
{
    fs_scenario *s = c->s;
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, root, "training", false, false, &list);
    if (rc != FS_OK || list == NULL || json_array_size(list) == 0)
        return rc;
    size_t n = json_array_size(list);
    s->training = calloc(n, sizeof *s->training);
    if (s->training == NULL)
        return fs_jpath_oom(p);
    s->n_training = n;
    for (size_t i = 0; i < n; i++) {
        s->training[i].after = SIZE_MAX;
        s->training[i].deploy_service = SIZE_MAX;
    }
    rc = fs__scenario_parse_array_of(p, root, "training", c, parse_patched_stream);
    return rc == FS_OK ? fs__scenario_resolve_after(p, s) : rc;
}

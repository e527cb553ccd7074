/*
 * scenario — reading a "fleetsim/1" JSON file into an fs_scenario; see scenario.h.
 *
 * Structure: jansson parses the text (rejecting duplicate keys), then one
 * function per JSON object reads it through an fs_jpath cursor (jsonpath.h),
 * which keeps the path for messages and refuses unknown keys.  The scenario
 * is built in freshly zeroed memory and handed out only when everything,
 * cross-checks included, has passed; on any failure fs_scenario_destroy
 * frees the partial scenario, which works because every owned pointer starts
 * NULL and every count is set together with its array.
 *
 * This file holds the entry points, the reading of files, the root object
 * with its policies, and the order in which the sections are read
 * (parse_fields).  Each section's reader is in a file of its own (README.md
 * lists them; scenario_parse.h is what they share).  Errors are reported in
 * the order the sections are read, so that order is part of the behaviour.
 */
#include "scenario.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "jsonpath.h"
#include "scenario_parse.h"

/* Tiered policy: share of a serving pool kept free for bursts. */
#define DEFAULT_HEADROOM 0.4

/* --------------------------------------------------------------------- root */

static int parse_schema(fs_jpath *p, const json_t *root)
{
    json_t *v = json_object_get(root, "schema");
    if (v == NULL)
        return fs_jpath_fail(p, "missing required key \"schema\" (expected \"%s\")",
                             FS_SCENARIO_SCHEMA);
    if (json_is_string(v) && strcmp(json_string_value(v), FS_SCENARIO_SCHEMA) == 0)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "schema");
    int rc = fs_jpath_expected(p, v, "\"%s\"", FS_SCENARIO_SCHEMA);
    fs_jpath_pop(p, mark);
    return rc;
}

/* "runs/morning-tail.json" -> "morning-tail"; an origin that is not a path
 * ("<string>") comes back as it is. */
static int default_name(fs_jpath *p, const char *origin, char **out)
{
    const char *base = strrchr(origin, '/');
    base = base != NULL && base[1] != '\0' ? base + 1 : origin;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    *out = malloc(len + 1);
    if (*out == NULL)
        return fs_jpath_oom(p);
    memcpy(*out, base, len);
    (*out)[len] = '\0';
    return FS_OK;
}

int fs__scenario_parse_array_of(fs_jpath *p, const json_t *root, const char *key, parse_ctx *c,
                                int (*parse_one)(fs_jpath *, const json_t *, size_t, parse_ctx *))
{
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, root, key, true, true, &list);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, key);
    for (size_t i = 0; rc == FS_OK && i < json_array_size(list); i++) {
        size_t m = fs_jpath_push_index(p, i);
        rc = parse_one(p, json_array_get(list, i), i, c);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* Length of root[key] when it is an array, else 0 (fs__scenario_parse_array_of then
 * reports the missing or mistyped key). */
static size_t array_length(const json_t *root, const char *key)
{
    json_t *list = json_object_get(root, key);
    return json_is_array(list) ? json_array_size(list) : 0;
}

/* services[index]; an error in one this policy patched says so. */
static int parse_service(fs_jpath *p, const json_t *svc, size_t index, parse_ctx *c)
{
    int rc = fs__scenario_parse_service(p, svc, index, c);
    if (rc == FS_ERR_INPUT)
        fs__scenario_blame_patch(p, svc, c);
    return rc;
}

/* The root object of one variant, section by section.  The order of the calls
 * is the order in which a document's mistakes are found, and follows what
 * each section needs: "gpus" before the pools and services that name its
 * types, pools before the services that name them, services before training
 * (they share one set of names), and every type placed before the types'
 * calibrations are read. */
static int parse_fields(fs_jpath *p, const json_t *root, parse_ctx *c)
{
    static const char *const keys[] = {"schema",   "name",          "description", "horizon",
                                       "warmup",   "window",        "seed",        "replications",
                                       "gpus",     "start_weekday", "pools",       "services",
                                       "policies", "training",      "calibration", "ci",
                                       "window_anchor", "quotas",   "reserve_after", "fair_sharing",
                                       "regions"};
    fs_scenario *s = c->s;
    if (!json_is_object(root))
        return fs_jpath_expected(p, root, "an object at the top level");
    int rc = parse_schema(p, root);
    if (rc == FS_OK)
        rc = fs_jpath_check_keys(p, root, keys, COUNT(keys));

    const char *name = NULL, *description = "";
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, root, "name", false, true, &name);
    if (rc == FS_OK)
        rc = name != NULL ? fs__scenario_dup_into(p, &s->name, name)
                          : default_name(p, p->origin, &s->name);
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, root, "description", false, false, &description);
    if (rc == FS_OK)
        rc = fs__scenario_dup_into(p, &s->description, description);

    if (rc == FS_OK)
        rc = fs__scenario_parse_run(p, root, s);

    if (rc == FS_OK)
        rc = fs__scenario_parse_regions(p, root, s);
    if (rc == FS_OK)
        rc = fs__scenario_parse_gpu_types(p, root, c);
    if (rc == FS_OK) {
        size_t n_cat;
        fs_gpu_catalog(&n_cat);
        c->gpu_types_cap = c->n_declared + n_cat;
        s->gpu_types = calloc(c->gpu_types_cap, sizeof *s->gpu_types);
        rc = s->gpu_types == NULL ? fs_jpath_oom(p) : FS_OK;
    }

    /* Arrays are allocated zeroed at their final size before any element is
     * read, with the count set at once, so destroy can free a half-read one. */
    size_t n = array_length(c->fleet, "pools");
    if (rc == FS_OK && n > 0) {
        s->pools = calloc(n, sizeof *s->pools);
        rc = s->pools == NULL ? fs_jpath_oom(p) : FS_OK;
        s->n_pools = s->pools == NULL ? 0 : n;
    }
    if (rc == FS_OK) {
        size_t mark = p->len;
        if (c->policy) {
            fs_jpath_push_key(p, "policies");
            fs_jpath_push_key(p, c->policy);
        }
        rc = fs__scenario_parse_array_of(p, c->fleet, "pools", c, fs__scenario_parse_pool);
        /* Each pool is capped; so is the fleet they make, at its largest
         * (elastic pools at their "max"). */
        uint64_t fleet_gpus = 0;
        for (size_t i = 0; rc == FS_OK && i < s->n_pools; i++)
            fleet_gpus += s->pools[i].max_gpus > s->pools[i].gpus ? s->pools[i].max_gpus
                                                                  : s->pools[i].gpus;
        if (rc == FS_OK && fleet_gpus > FS_SCENARIO_MAX_GPUS) {
            fs_jpath_push_key(p, "pools");
            rc = fs_jpath_fail(p, "the pools hold up to %" PRIu64 " GPUs, more than the %d a fleet "
                                  "may have (the limit)",
                               fleet_gpus, FS_SCENARIO_MAX_GPUS);
        }
        fs_jpath_pop(p, mark);
    }
    /* A training-only cluster needs no service: "services" may be left out
     * when "training" lists a stream (an empty list is still refused). */
    bool training_only = json_object_get(root, "services") == NULL && array_length(root, "training") > 0;
    n = array_length(root, "services");
    if (rc == FS_OK && n > 0) {
        s->services = calloc(n, sizeof *s->services);
        rc = s->services == NULL ? fs_jpath_oom(p) : FS_OK;
        s->n_services = s->services == NULL ? 0 : n;
    }
    if (rc == FS_OK && !training_only)
        rc = fs__scenario_parse_array_of(p, root, "services", c, parse_service);
    if (rc == FS_OK)
        rc = fs__scenario_parse_spills(p, root, c);
    if (rc == FS_OK)
        rc = fs__scenario_parse_training(p, root, c);
    if (rc == FS_OK)
        rc = fs__scenario_parse_quotas(p, root, s);
    if (rc == FS_OK)
        rc = fs__scenario_parse_calibration(p, root, &s->switch_costs);
    /* Declared types nothing named go last, so gpu_types shows the whole
     * catalog the file defines.  No capacity check follows: whether replicas
     * fit depends on memory footprints and partitioning, which is
     * placement's question (placement.h), not a count of GPUs. */
    for (size_t i = 0; rc == FS_OK && i < c->n_declared; i++)
        (void)fs__scenario_gpu_type_index(c, c->declared[i].name);
    if (rc == FS_OK)
        rc = fs__scenario_parse_gpu_calibrations(p, c);
    /* LLM services' units last: a step time may come from a type's profile. */
    const json_t *services = json_object_get(root, "services");
    for (size_t i = 0; rc == FS_OK && i < s->n_services; i++) {
        if (s->services[i].batching.kind != FS_BATCHING_CONTINUOUS)
            continue;
        size_t mark = fs_jpath_push_key(p, "services");
        fs_jpath_push_index(p, i);
        rc = fs__scenario_check_continuous(p, i, s);
        fs_jpath_pop(p, mark);
        if (rc == FS_ERR_INPUT)
            fs__scenario_blame_patch(p, json_array_get(services, i), c);
    }
    return rc;
}

static const char *const kind_names[] = {[FS_POLICY_SHARED] = "shared",
                                         [FS_POLICY_PARTITIONED] = "partitioned",
                                         [FS_POLICY_TIERED] = "tiered"};

/* A policy's "kind", "borrowing" and "headroom".  The kind defaults to the
 * policy's name when that is a kind (any case), else shared; the top-level
 * "pools" policy ("default") takes every default. */
static int parse_policy_settings(fs_jpath *p, const json_t *fleet, const char *policy,
                                 fs_scenario *s)
{
    s->policy_kind = FS_POLICY_SHARED;
    for (size_t k = 0; k < COUNT(kind_names); k++)
        if (fs__scenario_ascii_iequal(s->policy, kind_names[k]))
            s->policy_kind = (fs_policy_kind)k;
    s->borrowing = false;
    s->headroom = DEFAULT_HEADROOM;
    if (policy == NULL)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "policies");
    fs_jpath_push_key(p, policy);
    int kind = s->policy_kind;
    int rc = fs__scenario_get_choice(p, fleet, "kind", "a policy kind", kind_names,
                                     COUNT(kind_names), &kind);
    s->policy_kind = (fs_policy_kind)kind;
    if (rc == FS_OK)
        rc = fs__scenario_get_bool(p, fleet, "borrowing", &s->borrowing);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, fleet, "headroom", false, FS_JPATH_NONNEG, &s->headroom);
    if (rc == FS_OK && !(s->headroom < 1)) {
        fs_jpath_push_key(p, "headroom");
        rc = fs_jpath_expected(p, json_object_get(fleet, "headroom"),
                               "a number from 0 up to but not including 1 (the share of each "
                               "serving pool kept free)");
    }
    if (rc == FS_OK) /* the scheduler's choice, over the top level's: the quotas stay the organisation's */
        rc = fs__scenario_parse_fair_sharing(p, fleet, s->n_quotas > 0, s);
    fs_jpath_pop(p, mark);
    return rc;
}

/* One variant: the whole document read with the pools of one fleet and the
 * services as that policy patches them. */
static int parse_variant(fs_jpath *p, const json_t *root, const json_t *fleet, const char *policy,
                         fs_scenario *s)
{
    parse_ctx c = {s, NULL, NULL, 0, 0, fleet, policy};
    json_t *doc = NULL;
    int rc = fs__scenario_dup_into(p, &s->policy, policy ? policy : "default");
    if (rc == FS_OK)
        rc = fs__scenario_policy_doc(p, root, fleet, policy, &doc);
    if (rc == FS_OK)
        rc = parse_fields(p, doc, &c);
    if (rc == FS_OK)
        rc = parse_policy_settings(p, fleet, policy, s);
    if (rc == FS_OK)
        rc = fs__scenario_check_windows(p, doc, s);
    json_decref(doc);
    free(c.declared);
    free(c.declared_cal);
    return rc;
}

/* "policies": an object of named fleets, each {"pools": [...]} and perhaps
 * "services" patches (scenario_patch.c), in document order; or the top-level
 * "pools" as the one policy "default". */
static int parse_root(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    static const char *const policy_keys[] = {"pools", "kind", "borrowing", "headroom", "services", "fair_sharing",
                                               "training"};
    const json_t *policies = json_is_object(root) ? json_object_get(root, "policies") : NULL;
    size_t n = 1;
    if (policies != NULL) {
        size_t mark = fs_jpath_push_key(p, "policies");
        int rc = FS_OK;
        if (!json_is_object(policies) || json_object_size(policies) == 0)
            rc = fs_jpath_expected(p, policies,
                                   "an object of named policies, each {\"pools\": [...]}");
        else if (json_object_get(root, "pools") != NULL)
            rc = fs_jpath_fail(p, "\"policies\" and a top-level \"pools\" exclude each other: "
                                  "give each policy its pools");
        const char *name;
        const json_t *fleet;
        json_object_foreach((json_t *)policies, name, fleet) {
            if (rc != FS_OK)
                break;
            size_t m = fs_jpath_push_key(p, name);
            if (!json_is_object(fleet))
                rc = fs_jpath_expected(p, fleet, "an object with \"pools\"");
            else
                rc = fs_jpath_check_keys(p, fleet, policy_keys, COUNT(policy_keys));
            if (rc == FS_OK && (name[0] == '\0' || strlen(name) >= FS_GPU_NAME_MAX))
                rc = fs_jpath_fail(p, "expected a policy name of 1 to %d characters",
                                   FS_GPU_NAME_MAX - 1);
            fs_jpath_pop(p, m);
        }
        fs_jpath_pop(p, mark);
        if (rc != FS_OK)
            return rc;
        n = json_object_size(policies);
    }
    s->policies = calloc(n, sizeof *s->policies);
    if (s->policies == NULL)
        return fs_jpath_oom(p);
    s->policies[0] = s;
    s->n_policies = 1;
    if (policies == NULL)
        return parse_variant(p, root, root, NULL, s);
    const char *name;
    const json_t *fleet;
    int rc = FS_OK;
    json_object_foreach((json_t *)policies, name, fleet) {
        fs_scenario *v = s;
        if (s->policy != NULL) { /* the root is the first policy; the rest are new variants */
            v = calloc(1, sizeof *v);
            if (v == NULL || (rc = fs__scenario_dup_into(p, &v->path, s->path)) != FS_OK) {
                free(v);
                return rc != FS_OK ? rc : fs_jpath_oom(p);
            }
            s->policies[s->n_policies++] = v;
        }
        rc = parse_variant(p, root, fleet, name, v);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

/* -------------------------------------------------------------------- files */

/* A file named in the scenario: relative to the scenario file's directory
 * unless absolute.  NULL when out of memory. */
char *fs__scenario_relative_path(const char *origin, const char *name)
{
    const char *slash = strrchr(origin, '/');
    size_t dir = name[0] != '/' && slash != NULL ? (size_t)(slash - origin) + 1 : 0;
    char *path = malloc(dir + strlen(name) + 1);
    if (path == NULL)
        return NULL;
    memcpy(path, origin, dir);
    memcpy(path + dir, name, strlen(name) + 1);
    return path;
}

/* jansson's parse of len bytes, duplicate keys refused; errors are
 * "origin:line:column: message". */
int fs__scenario_load_json(const char *text, size_t len, const char *origin, json_t **out,
                           fs_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        /* jansson marks some allocation failures as such, leaves others with
         * no text and no position (line -1), and reports the rest, from inside
         * its lexer, as a syntax error near a perfectly good token; the last
         * kind cannot be told apart and is reported as bad input. */
        if (json_error_code(&jerr) == json_error_out_of_memory || jerr.line < 0 ||
            jerr.text[0] == '\0')
            return fs_error_set(err, FS_ERR_RUNTIME, "%s: out of memory", origin);
        return fs_error_set(err, FS_ERR_INPUT, "%s:%d:%d: %s", origin, jerr.line, jerr.column,
                            jerr.text);
    }
    *out = root;
    return FS_OK;
}

/* Parses len bytes of text; origin names it in messages and becomes s->path. */
int fs_scenario_parse_json(const json_t *root, const char *origin, fs_scenario **out, fs_error *err)
{
    assert(root != NULL && out != NULL);
    if (origin == NULL)
        origin = "<document>";
    fs_jpath p;
    fs_jpath_init(&p, origin, err);
    fs_scenario *s = calloc(1, sizeof *s);
    int rc = s == NULL ? fs_jpath_oom(&p) : fs__scenario_dup_into(&p, &s->path, origin);
    if (rc == FS_OK)
        rc = parse_root(&p, root, s);
    if (rc != FS_OK) {
        fs_scenario_destroy(s);
        return rc;
    }
    *out = s;
    return FS_OK;
}

static int parse_buffer(const char *text, size_t len, const char *origin, fs_scenario **out,
                        fs_error *err)
{
    json_t *root = NULL;
    int rc = fs__scenario_load_json(text, len, origin, &root, err);
    if (rc != FS_OK)
        return rc;
    rc = fs_scenario_parse_json(root, origin, out, err);
    json_decref(root);
    return rc;
}

int fs_scenario_parse(const char *text, const char *origin, fs_scenario **out, fs_error *err)
{
    assert(text != NULL && out != NULL);
    return parse_buffer(text, strlen(text), origin != NULL ? origin : "<string>", out, err);
}

/* Reads the whole file into memory: scenario files are kilobytes, and
 * reading it ourselves (rather than json_load_file) tells "cannot read"
 * apart from "bad JSON" with the real errno.  A file the user named that
 * cannot be read is bad input (exit 2), like a file that does not parse. */
int fs__scenario_read_file(const char *path, char **text, size_t *len, fs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(errno));
    /* Only a regular file has an end: a device (/dev/zero), a FIFO or a
     * directory would be read forever, block, or fail with an obscure
     * message.  The size cap also stops a file that grows while read. */
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        int e = errno;
        fclose(f);
        return fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        fclose(f);
        return fs_error_set(err, FS_ERR_INPUT, "%s: expected a regular file, got %s", path,
                            S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
    }
    size_t cap = 64 * 1024, n = 0;
    char *buf = malloc(cap);
    int rc = buf == NULL ? fs_error_set(err, FS_ERR_RUNTIME, "%s: out of memory", path) : FS_OK;
    while (rc == FS_OK) {
        if (n >= (size_t)FS_SCENARIO_MAX_FILE_BYTES) {
            rc = fs_error_set(err, FS_ERR_INPUT, "%s: reaches %ld MiB, the limit for a scenario file",
                              path, FS_SCENARIO_MAX_FILE_BYTES / (1024 * 1024));
            break;
        }
        if (n == cap) {
            char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (bigger == NULL) {
                rc = fs_error_set(err, FS_ERR_RUNTIME, "%s: out of memory", path);
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = fs_error_set(err, FS_ERR_INPUT, "%s: cannot read: %s", path,
                                  strerror(errno != 0 ? errno : EIO));
            break;
        }
    }
    fclose(f);
    if (rc != FS_OK) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return FS_OK;
}

int fs_scenario_load(const char *path, fs_scenario **out, fs_error *err)
{
    assert(path != NULL && out != NULL);
    char *text = NULL;
    size_t len = 0;
    int rc = fs__scenario_read_file(path, &text, &len, err);
    if (rc != FS_OK)
        return rc;
    rc = parse_buffer(text, len, path, out, err);
    free(text);
    return rc;
}

void fs_scenario_destroy(fs_scenario *s)
{
    if (s == NULL)
        return;
    for (size_t k = 1; s->policies && k < s->n_policies; k++)
        fs_scenario_destroy(s->policies[k]);
    free(s->policies);
    free(s->policy);
    free(s->path);
    free(s->name);
    free(s->description);
    for (size_t i = 0; i < s->n_pools; i++) {
        free(s->pools[i].name);
        free(s->pools[i].gpu);
        fs_dist_fini(&s->pools[i].provision_delay);
        fs__scenario_free_mig_plan(s->pools[i].mig_plan);
    }
    free(s->pools);
    for (size_t i = 0; i < s->n_services; i++) {
        fs_service_spec *svc = &s->services[i];
        free(svc->name);
        free(svc->tenant);
        fs__scenario_free_arrivals(&svc->arrivals);
        /* Safe on a service whose distribution was never built: its zeroed
         * fs_dist is a deterministic one with no samples. */
        fs_dist_fini(&svc->service_time);
        free(svc->batching.llm.model_name);
        fs_dist_fini(&svc->batching.llm.prompt);
        fs_dist_fini(&svc->batching.llm.output);
    }
    free(s->services);
    for (size_t i = 0; i < s->n_training; i++) {
        free(s->training[i].name);
        free(s->training[i].tenant);
        for (size_t k = 0; k < s->training[i].n_after; k++)
            free(s->training[i].after_names[k]);
        free(s->training[i].after_names);
        free(s->training[i].afters);
        free(s->training[i].submit_at_s);
        fs_dist_fini(&s->training[i].gang_mix);
        fs_dist_fini(&s->training[i].run_time);
        for (size_t c = 0; c < s->training[i].n_run_time_by_gang; c++) {
            free(s->training[i].run_time_by_gang[c].gangs);
            fs_dist_fini(&s->training[i].run_time_by_gang[c].run_time);
        }
        free(s->training[i].run_time_by_gang);
        fs_dist_fini(&s->training[i].fail_after);
        fs_dist_fini(&s->training[i].cancel_after);
        if (s->training[i].submit_shape) {
            fs__scenario_free_arrivals(s->training[i].submit_shape);
            free(s->training[i].submit_shape);
        }
        for (size_t k = 0; k < s->training[i].n_priorities; k++)
            free(s->training[i].priority_texts[k]);
        free(s->training[i].priority_texts);
        free(s->training[i].priority_lanes);
        if (s->training[i].trace) {
            fs_trace_spec_fini(s->training[i].trace);
            free(s->training[i].trace);
        }
    }
    free(s->training);
    for (size_t k = 0; k < s->n_quotas; k++)
        free(s->quotas[k].tenant);
    free(s->quotas);
    for (size_t k = 0; k < s->n_cohorts; k++)
        free(s->cohorts[k]);
    free(s->cohorts);
    for (size_t k = 0; k < s->n_regions; k++)
        free(s->regions[k].name);
    free(s->regions);
    free(s->gpu_types);
    free(s->gpu_switch_costs);
    free(s);
}

const fs_switch_costs *fs_scenario_switch_costs(const fs_scenario *s, size_t gpu_type)
{
    assert(s != NULL && gpu_type < s->n_gpu_types);
    /* NULL in a scenario built by hand rather than parsed: the scenario's own. */
    return s->gpu_switch_costs != NULL ? &s->gpu_switch_costs[gpu_type] : &s->switch_costs;
}

void fs_scenario_set_lenient(fs_scenario *s)
{
    size_t n = s->policies ? s->n_policies : 1;
    for (size_t v = 0; v < n; v++) {
        fs_scenario *variant = s->policies ? s->policies[v] : s;
        for (size_t i = 0; i < variant->n_services; i++)
            if (variant->services[i].arrivals.trace)
                variant->services[i].arrivals.trace->lenient = true;
        for (size_t i = 0; i < variant->n_training; i++)
            if (variant->training[i].trace)
                variant->training[i].trace->lenient = true;
    }
}

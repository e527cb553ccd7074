/*
 * scenario_pipeline — a training stream's "after": the predecessor it
 * follows, or the list of predecessors a join waits for; each name resolved
 * once every stream is read, and the graph refused with a cycle (its path)
 * or a join fed from two roots (models/workload/pipeline.h runs it); and a
 * deploy step's "deploy" (models/workload/service_deploy.c runs it).
 */
#include "scenario_parse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a copy of name to out's predecessors.  ENOMEM leaves out as it
 * was, but for a larger after_names (freed with it). */
static int add_name(fs_jpath *p, fs_training_spec *out, const char *name)
{
    char **names = realloc(out->after_names, (out->n_after + 1) * sizeof *names);
    if (!names)
        return fs_jpath_oom(p);
    out->after_names = names;
    if (fs__scenario_dup_into(p, &names[out->n_after], name) != FS_OK)
        return FS_ERR_RUNTIME;
    out->n_after++;
    return FS_OK;
}

/* A join's list: non-empty, strings, no name twice (each at its index). */
static int parse_list(fs_jpath *p, const json_t *after, fs_training_spec *out)
{
    if (json_array_size(after) == 0)
        return fs_jpath_expected(p, after, "a training stream's name or a non-empty list of them");
    int rc = FS_OK;
    for (size_t k = 0; rc == FS_OK && k < json_array_size(after); k++) {
        size_t mark = fs_jpath_push_index(p, k);
        const char *name = NULL;
        rc = fs_jpath_string(p, json_array_get(after, k), true, &name);
        for (size_t j = 0; rc == FS_OK && j < out->n_after; j++)
            if (strcmp(out->after_names[j], name) == 0)
                rc = fs_jpath_fail(p, "\"%s\" is listed twice (after[%zu] too): a join waits for one job of "
                                      "each predecessor",
                                   name, j);
        if (rc == FS_OK)
            rc = add_name(p, out, name);
        fs_jpath_pop(p, mark);
    }
    return rc;
}

int fs__scenario_parse_after(fs_jpath *p, const json_t *job, const json_t *after, fs_training_spec *out)
{
    size_t mark = fs_jpath_push_key(p, "after");
    const char *name = NULL;
    int rc;
    if (json_object_get(job, "submit"))
        rc = fs_jpath_fail(p, "expected \"after\" or \"submit\", not both: a pipeline step's jobs are submitted "
                              "when its predecessor's complete");
    else if (json_is_array(after))
        rc = parse_list(p, after, out);
    else if ((rc = fs_jpath_string(p, after, true, &name)) == FS_OK)
        rc = add_name(p, out, name);
    fs_jpath_pop(p, mark);
    return rc;
}

/* Fails at training[i].after, or at training[i].after[k] when the stream
 * lists its predecessors (k SIZE_MAX: the key itself); pops what it pushed. */
static int fail_after(fs_jpath *p, const fs_scenario *s, size_t i, size_t k, const char *what, const char *a,
                      const char *b)
{
    size_t mark = fs_jpath_push_key(p, "training");
    fs_jpath_push_index(p, i);
    fs_jpath_push_key(p, "after");
    if (k != SIZE_MAX && s->training[i].n_after > 1)
        fs_jpath_push_index(p, k);
    int rc = fs_jpath_fail(p, "%s%s%s", what, a, b);
    fs_jpath_pop(p, mark);
    return rc;
}

/* Each name to its stream's index, or refused with the nearest name, or
 * saying it is a service. */
static int resolve_names(fs_jpath *p, fs_scenario *s, const char **names)
{
    size_t n = s->n_training;
    for (size_t i = 0; i < n; i++) {
        fs_training_spec *t = &s->training[i];
        if (t->n_after == 0)
            continue;
        t->afters = malloc(t->n_after * sizeof *t->afters);
        if (!t->afters)
            return fs_jpath_oom(p);
        for (size_t k = 0; k < t->n_after; k++) {
            const char *want = t->after_names[k];
            t->afters[k] = SIZE_MAX;
            for (size_t j = 0; j < n && t->afters[k] == SIZE_MAX; j++)
                if (strcmp(names[j], want) == 0)
                    t->afters[k] = j;
            if (t->afters[k] != SIZE_MAX)
                continue;
            const char *near = fs_jpath_closest(want, names, n);
            char hint[160] = "";
            for (size_t v = 0; v < s->n_services && !hint[0]; v++)
                if (strcmp(s->services[v].name, want) == 0)
                    snprintf(hint, sizeof hint, " (\"%s\" is a service; a step follows a training stream)", want);
            if (!hint[0] && near)
                snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", near);
            char quoted[160];
            snprintf(quoted, sizeof quoted, "\"%s\"", want);
            return fail_after(p, s, i, k, "no training stream is named ", quoted, hint);
        }
        t->after = t->afters[0];
    }
    return FS_OK;
}

/* A path from i back to i through predecessors, found depth first (each
 * list in its order, each stream entered once): its streams into path
 * (i first, then each one's predecessor), their number, or 0 when i is on
 * no cycle.  path and next hold n + 1 entries, seen n.  O(streams + edges). */
static size_t cycle_from(const fs_scenario *s, size_t i, size_t *path, size_t *next, unsigned char *seen)
{
    memset(seen, 0, s->n_training);
    size_t depth = 1;
    path[0] = i;
    next[0] = 0;
    seen[i] = 1;
    while (depth > 0) {
        const fs_training_spec *t = &s->training[path[depth - 1]];
        if (next[depth - 1] == t->n_after) {
            depth--;
            continue;
        }
        size_t j = t->afters[next[depth - 1]++];
        if (j == i) {
            path[depth] = i;
            return depth + 1;
        }
        if (seen[j])
            continue;
        seen[j] = 1;
        path[depth] = j;
        next[depth++] = 0;
    }
    return 0;
}

/* The graph's cycles refused with their path in pipeline order
 * (`training[2].after: the pipeline has a cycle: retrain -> evaluate ->
 * retrain`), the first stream (in document order) on one blamed.  O(n x
 * (n + edges)), over tens of streams. */
static int refuse_cycles(fs_jpath *p, const fs_scenario *s, const char **names)
{
    size_t n = s->n_training;
    size_t *path = malloc((n + 1) * sizeof *path), *next = malloc((n + 1) * sizeof *next);
    unsigned char *seen = malloc(n);
    int rc = path && next && seen ? FS_OK : fs_jpath_oom(p);
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        size_t len = cycle_from(s, i, path, next, seen);
        if (len == 0)
            continue;
        /* Walking back from i gives i, its predecessor, ..., i: written
         * the other way round, in pipeline order. */
        char text[512] = "";
        for (size_t k = len; k-- > 0;) {
            size_t used = strlen(text);
            snprintf(text + used, sizeof text - used, "%s%s", k + 1 < len ? " -> " : "", names[path[k]]);
        }
        rc = fail_after(p, s, i, SIZE_MAX, "the pipeline has a cycle: ", text, "");
    }
    free(path);
    free(next);
    free(seen);
    return rc;
}

/* The root a stream descends from through its first predecessors (itself
 * for a root).  The graph has no cycle.  O(depth). */
static size_t root_of(const fs_scenario *s, size_t i)
{
    while (s->training[i].after != SIZE_MAX)
        i = s->training[i].after;
    return i;
}

/* An iteration is one root job's: a join fed from two roots would have no
 * iteration to match its predecessors' jobs by, so it is refused. */
static int refuse_two_roots(fs_jpath *p, const fs_scenario *s, const char **names)
{
    for (size_t i = 0; i < s->n_training; i++) {
        const fs_training_spec *t = &s->training[i];
        size_t root = t->n_after > 0 ? root_of(s, t->afters[0]) : SIZE_MAX;
        for (size_t k = 1; k < t->n_after; k++) {
            size_t other = root_of(s, t->afters[k]);
            if (other == root)
                continue;
            char text[400];
            snprintf(text, sizeof text, ": \"%s\" descends from \"%s\", \"%s\" from \"%s\"", names[t->afters[0]],
                     names[root], names[t->afters[k]], names[other]);
            return fail_after(p, s, i, SIZE_MAX, "a join's predecessors must descend from the same root stream",
                              text, "");
        }
    }
    return FS_OK;
}

int fs__scenario_resolve_after(fs_jpath *p, fs_scenario *s)
{
    size_t n = s->n_training;
    const char **names = malloc(n * sizeof *names);
    if (!names)
        return fs_jpath_oom(p);
    for (size_t i = 0; i < n; i++)
        names[i] = s->training[i].name;
    int rc = resolve_names(p, s, names);
    if (rc == FS_OK)
        rc = refuse_cycles(p, s, names);
    if (rc == FS_OK)
        rc = refuse_two_roots(p, s, names);
    free(names);
    for (size_t i = 0; rc == FS_OK && i < n; i++)
        for (size_t j = 0; j < n && !s->training[i].n_after && !s->training[i].pipeline_root; j++)
            s->training[i].pipeline_root = fs_training_follows(&s->training[j], i);
    return rc;
}

/* "deploy": {"service", "max_surge"}: the service by name (with the nearest
 * one), fixed or autoscaled (models/workload/service_deploy.c), not
 * disaggregated. */
static int parse_deploy_object(fs_jpath *p, const json_t *deploy, const fs_scenario *s, fs_training_spec *out)
{
    static const char *const keys[] = {"service", "max_surge"};
    if (!json_is_object(deploy))
        return fs_jpath_expected(p, deploy, "an object {\"service\": NAME, \"max_surge\": N}");
    const char *name = NULL;
    uint64_t surge = 1;
    int rc = fs_jpath_check_keys(p, deploy, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, deploy, "service", true, true, &name);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, deploy, "max_surge", false, 1, FS_SCENARIO_MAX_REPLICAS, &surge);
    out->deploy_max_surge = (uint32_t)surge;
    if (rc != FS_OK)
        return rc;
    const char **names = malloc((s->n_services + 1) * sizeof *names);
    if (!names)
        return fs_jpath_oom(p);
    for (size_t k = 0; k < s->n_services; k++)
        if (strcmp((names[k] = s->services[k].name), name) == 0)
            out->deploy_service = k;
    const char *near = fs_jpath_closest(name, names, s->n_services);
    free(names);
    size_t mark = fs_jpath_push_key(p, "service");
    const fs_service_spec *svc = out->deploy_service != SIZE_MAX ? &s->services[out->deploy_service] : NULL;
    if (!svc && near)
        rc = fs_jpath_fail(p, "no service is named \"%s\" (did you mean \"%s\"?)", name, near);
    else if (!svc)
        rc = fs_jpath_fail(p, "no service is named \"%s\"", name);
    /* Decode replicas on other slots are not built. */
    else if (svc->decode_replicas > 0)
        rc = fs_jpath_fail(p, "service \"%s\" is disaggregated: a deploy step rolls out a service whose replicas "
                              "are all alike",
                           name);
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_parse_deploy(fs_jpath *p, const json_t *job, const fs_scenario *s, fs_training_spec *out)
{
    static const char *const own[] = {"name", "tenant", "after", "deploy"};
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)job, key, v) {
        bool allowed = false;
        for (size_t k = 0; k < COUNT(own); k++)
            allowed |= strcmp(key, own[k]) == 0;
        if (allowed)
            continue;
        size_t mark = fs_jpath_push_key(p, key);
        int rc = fs_jpath_fail(p, "%s: \"%s\" is refused beside \"deploy\" (its keys: \"name\", \"tenant\", "
                                  "\"after\", \"deploy\")",
                               strcmp(key, "submit") == 0 ? "a deploy step is submitted by its predecessors"
                                                          : "a deploy step takes no training GPUs of its own",
                               key);
        fs_jpath_pop(p, mark);
        return rc;
    }
    size_t mark = fs_jpath_push_key(p, "deploy");
    int rc = FS_OK;
    const json_t *after = json_object_get(job, "after");
    if (!after)
        rc = fs_jpath_fail(p, "a deploy step is a pipeline step: give it \"after\" (the stream whose completed "
                              "jobs it rolls out)");
    else
        rc = parse_deploy_object(p, json_object_get(job, "deploy"), s, out);
    fs_jpath_pop(p, mark);
    return rc == FS_OK ? fs__scenario_parse_after(p, job, after, out) : rc;
}

uint32_t fs_scenario_deploy_surge(const fs_scenario *s, size_t service)
{
    uint32_t most = 0;
    for (size_t i = 0; i < s->n_training; i++)
        if (s->training[i].deploy_service == service && s->training[i].deploy_max_surge > most)
            most = s->training[i].deploy_max_surge;
    return most;
}

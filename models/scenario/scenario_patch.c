/*
 * scenario_patch — a policy's "services" and "training": the document one
 * policy reads.
 *
 * "policies": {"disagg": {"pools": [...], "services": {"chat": PATCH}}}
 * deploys the top-level service "chat" differently under "disagg": PATCH is
 * a JSON merge patch (RFC 7386) applied to a copy of that service's object
 * before this policy's variant reads it.  "training": {"finetune": PATCH}
 * does the same for a training stream: how its jobs are run (a release
 * window, preemptible, checkpoints, priority, across_pools, on_eviction).
 * A policy compares fleets and ways of serving one workload, so a patch may
 * not touch what defines the workload or how it is judged (a service's name
 * and tenant, arrivals, SLO, service time, region, and an LLM service's
 * model and request sizes; a stream's name, tenant, submissions, pipeline
 * and deploy step, gangs, work, state and failures): that would make the policies' figures
 * incomparable (common random numbers pair requests and jobs of the same
 * workload).  Services and streams keep their order and names in every
 * variant, so results pair them by index.
 */
#include "scenario_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One list a policy may patch: its key at the top level and in a policy,
 * what one element is called, and the keys (and keys of "batching") a patch
 * may not change, with why. */
typedef struct patch_section {
    const char *key, *noun, *why;
    const char *const *fixed;
    size_t n_fixed;
    const char *const *fixed_batching;
    size_t n_fixed_batching;
} patch_section;

static const char *const fixed_keys[] = {"name", "tenant", "arrivals", "slo", "service_time", "region"};
static const char *const fixed_batching[] = {"prompt_tokens", "output_tokens", "prefix", "max_model_len", "model"};
static const char *const fixed_training[] = {"name",     "tenant",           "submit",           "after",
                                             "gang",     "work_gpu_hours",   "run_time",         "run_time_by_gang",
                                             "failures", "state_gb_per_gpu", "cancellations",    "region",
                                             "deploy"};

static const patch_section sections[] = {
    {"services", "service", "a policy changes how a service is deployed, not its traffic or its targets", fixed_keys,
     COUNT(fixed_keys), fixed_batching, COUNT(fixed_batching)},
    {"training", "training stream", "a policy changes how a stream's jobs are run, not the jobs or their work",
     fixed_training, COUNT(fixed_training), NULL, 0},
};

/* RFC 7386 on an object target (a copy the caller owns): each member of
 * patch that is null deletes that key, an object merges into the target's
 * member (an empty object when that is not an object), and anything else
 * replaces it.  jansson's json_object_update_recursive would store the nulls
 * instead of deleting.  0, or -1 when out of memory. */
static int merge_patch(json_t *target, const json_t *patch)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)patch, key, v) {
        if (json_is_null(v)) {
            json_object_del(target, key); /* absent already: nothing to delete */
            continue;
        }
        if (!json_is_object(v)) {
            if (json_object_set(target, key, v) != 0)
                return -1;
            continue;
        }
        json_t *child = json_object_get(target, key);
        if (!json_is_object(child)) {
            child = json_object();
            if (child == NULL || json_object_set_new(target, key, child) != 0)
                return -1;
        }
        if (merge_patch(child, v) != 0)
            return -1;
    }
    return 0;
}

/* Refuses a patch (the cursor on it) that would change a fixed key of the
 * element el: one it names, or, under "batching", one a null or a
 * non-object "batching" would delete or replace. */
static int check_fixed(fs_jpath *p, const patch_section *sec, const json_t *el, const json_t *patch)
{
    int rc = FS_OK;
    for (size_t k = 0; rc == FS_OK && k < sec->n_fixed; k++) {
        if (json_object_get(patch, sec->fixed[k]) == NULL)
            continue;
        size_t mark = fs_jpath_push_key(p, sec->fixed[k]);
        rc = fs_jpath_fail(p, "%s", sec->why);
        fs_jpath_pop(p, mark);
    }
    const json_t *batching = json_object_get(patch, "batching");
    if (rc != FS_OK || batching == NULL || sec->n_fixed_batching == 0)
        return rc;
    size_t mark = fs_jpath_push_key(p, "batching");
    for (size_t k = 0; rc == FS_OK && k < sec->n_fixed_batching; k++) {
        const char *key = sec->fixed_batching[k];
        if (json_is_object(batching) && json_object_get(batching, key) != NULL) {
            size_t m = fs_jpath_push_key(p, key);
            rc = fs_jpath_fail(p, "%s", sec->why);
            fs_jpath_pop(p, m);
        } else if (!json_is_object(batching) && json_object_get(json_object_get(el, "batching"), key) != NULL) {
            rc = fs_jpath_fail(p, "%s (this would remove \"batching.%s\")", sec->why, key);
        }
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* The index of the element of list named name, or SIZE_MAX. */
static size_t find_named(const json_t *list, const char *name)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(list, i), "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return i;
    }
    return SIZE_MAX;
}

/* Refuses name (the cursor on it) as no element's of list, giving the
 * nearest or the list. */
static int unknown_name(fs_jpath *p, const patch_section *sec, const json_t *list, const char *name)
{
    size_t n = json_array_size(list), k = 0;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (names == NULL)
        return fs_jpath_oom(p);
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(list, i), "name"));
        if (s != NULL)
            names[k++] = s;
    }
    const char *near = fs_jpath_closest(name, names, k);
    char all[512];
    fs_jpath_list(names, k, all, sizeof all);
    int rc = near != NULL ? fs_jpath_fail(p, "no %s named \"%s\" (did you mean \"%s\"?)", sec->noun, name, near)
             : k > 0      ? fs_jpath_fail(p, "no %s named \"%s\" (the %ss: %s)", sec->noun, name, sec->noun, all)
                          : fs_jpath_fail(p, "no %s named \"%s\" (the scenario has no %ss)", sec->noun, name,
                                          sec->noun);
    free(names);
    return rc;
}

/* Patches copy (a shallow copy of the document's list) as patches says,
 * the cursor on the policy's section. */
static int apply_patches(fs_jpath *p, const patch_section *sec, const json_t *list, const json_t *patches,
                         json_t *copy)
{
    const char *name;
    json_t *patch;
    int rc = FS_OK;
    json_object_foreach((json_t *)patches, name, patch) {
        size_t mark = fs_jpath_push_key(p, name);
        size_t i = find_named(list, name);
        if (i == SIZE_MAX)
            rc = unknown_name(p, sec, list, name);
        else if (!json_is_object(patch))
            rc = fs_jpath_expected(p, patch, "an object: a JSON merge patch of %s \"%s\"", sec->noun, name);
        else
            rc = check_fixed(p, sec, json_array_get(list, i), patch);
        if (rc == FS_OK) {
            json_t *patched = json_deep_copy(json_array_get(list, i));
            if (patched == NULL || merge_patch(patched, patch) != 0 || json_array_set_new(copy, i, patched) != 0)
                rc = fs_jpath_oom(p); /* json_array_set_new released patched */
        }
        fs_jpath_pop(p, mark);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

/* Sets doc[sec->key] to a copy of root's list patched as the policy says;
 * nothing when the policy patches none of it or root's is not a list
 * (reading the document then says what is wrong with it).  Without the list
 * at all, every name patched is no element's. */
static int patch_section_of(fs_jpath *p, const patch_section *sec, const json_t *root, const json_t *fleet,
                            const char *policy, json_t *doc)
{
    const json_t *patches = json_object_get(fleet, sec->key);
    const json_t *list = json_object_get(root, sec->key);
    json_t *none = NULL;
    if (patches == NULL || (list != NULL && !json_is_array(list)))
        return FS_OK;
    if (list == NULL && (list = none = json_array()) == NULL)
        return fs_jpath_oom(p);
    size_t mark = fs_jpath_push_key(p, "policies");
    fs_jpath_push_key(p, policy);
    fs_jpath_push_key(p, sec->key);
    int rc = FS_OK;
    json_t *copy = NULL;
    if (!json_is_object(patches)) {
        rc = fs_jpath_expected(p, patches, "an object of %s names, each with a JSON merge patch of that %s",
                               sec->noun, sec->noun);
    } else {
        /* A shallow copy: only the patched elements are copied whole. */
        copy = json_copy((json_t *)list);
        rc = copy == NULL ? fs_jpath_oom(p) : apply_patches(p, sec, list, patches, copy);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK && none == NULL && json_object_set(doc, sec->key, copy) != 0)
        rc = fs_jpath_oom(p); /* (an empty patch of no list leaves the document without one) */
    json_decref(copy);
    json_decref(none);
    return rc;
}

int fs__scenario_policy_doc(fs_jpath *p, const json_t *root, const json_t *fleet, const char *policy, json_t **out)
{
    bool patched = false;
    for (size_t k = 0; policy != NULL && k < COUNT(sections); k++)
        patched |= json_object_get(fleet, sections[k].key) != NULL;
    if (!patched) {
        *out = json_incref((json_t *)root);
        return FS_OK;
    }
    /* A shallow copy: the document stays as it is. */
    json_t *doc = json_copy((json_t *)root);
    int rc = doc == NULL ? fs_jpath_oom(p) : FS_OK;
    for (size_t k = 0; rc == FS_OK && k < COUNT(sections); k++)
        rc = patch_section_of(p, &sections[k], root, fleet, policy, doc);
    if (rc != FS_OK) {
        json_decref(doc);
        return rc;
    }
    *out = doc;
    return FS_OK;
}

/* Appends " (as patched by policies.NAME.SECTION.ELEMENT)" when c's policy
 * patched el. */
static void blame(fs_jpath *p, const json_t *el, const char *section, const parse_ctx *c)
{
    const char *name = json_string_value(json_object_get(el, "name"));
    const json_t *patches = c->policy != NULL ? json_object_get(c->fleet, section) : NULL;
    if (p->err == NULL || name == NULL || json_object_get(patches, name) == NULL)
        return;
    size_t n = strlen(p->err->msg);
    snprintf(p->err->msg + n, sizeof p->err->msg - n, " (as patched by policies.%s.%s.%s)", c->policy, section,
             name);
}

void fs__scenario_blame_patch(fs_jpath *p, const json_t *svc, const parse_ctx *c)
{
    blame(p, svc, "services", c);
}

void fs__scenario_blame_training_patch(fs_jpath *p, const json_t *stream, const parse_ctx *c)
{
    blame(p, stream, "training", c);
}

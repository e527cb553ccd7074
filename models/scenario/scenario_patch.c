/*
 * scenario_patch — a policy's "services": the document one policy reads.
 *
 * "policies": {"disagg": {"pools": [...], "services": {"chat": PATCH}}}
 * deploys the top-level service "chat" differently under "disagg": PATCH is
 * a JSON merge patch (RFC 7386) applied to a copy of that service's object
 * before this policy's variant reads it.  A policy compares fleets and ways
 * of serving one workload, so a patch may not touch what defines the
 * workload or how it is judged (its name and tenant, arrivals, SLO, service
 * time, region, and an LLM service's model and request sizes): that would make the
 * policies' figures incomparable (common random numbers pair requests of the
 * same workload).  The services keep their order and names in every variant,
 * so results pair them by index.
 */
#include "scenario_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXED_WHY "a policy changes how a service is deployed, not its traffic or its targets"

/* What a patch may not change: top-level keys of a service, and keys of its
 * "batching". */
static const char *const fixed_keys[] = {"name", "tenant", "arrivals", "slo", "service_time", "region"};
static const char *const fixed_batching[] = {"prompt_tokens", "output_tokens", "prefix", "max_model_len", "model"};

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

/* Refuses a patch (the cursor on it) that would change a fixed key of svc:
 * one it names, or, under "batching", one a null or a non-object "batching"
 * would delete or replace. */
static int check_fixed(fs_jpath *p, const json_t *svc, const json_t *patch)
{
    int rc = FS_OK;
    for (size_t k = 0; rc == FS_OK && k < COUNT(fixed_keys); k++) {
        if (json_object_get(patch, fixed_keys[k]) == NULL)
            continue;
        size_t mark = fs_jpath_push_key(p, fixed_keys[k]);
        rc = fs_jpath_fail(p, FIXED_WHY);
        fs_jpath_pop(p, mark);
    }
    const json_t *batching = json_object_get(patch, "batching");
    if (rc != FS_OK || batching == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "batching");
    for (size_t k = 0; rc == FS_OK && k < COUNT(fixed_batching); k++) {
        const char *key = fixed_batching[k];
        if (json_is_object(batching) && json_object_get(batching, key) != NULL) {
            size_t m = fs_jpath_push_key(p, key);
            rc = fs_jpath_fail(p, FIXED_WHY);
            fs_jpath_pop(p, m);
        } else if (!json_is_object(batching) && json_object_get(json_object_get(svc, "batching"), key) != NULL) {
            rc = fs_jpath_fail(p, "%s (this would remove \"batching.%s\")", FIXED_WHY, key);
        }
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* The index of the element of services named name, or SIZE_MAX. */
static size_t find_service(const json_t *services, const char *name)
{
    for (size_t i = 0; i < json_array_size(services); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(services, i), "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return i;
    }
    return SIZE_MAX;
}

/* Refuses name (the cursor on it) as no service's, giving the nearest or the list. */
static int unknown_service(fs_jpath *p, const json_t *services, const char *name)
{
    size_t n = json_array_size(services), k = 0;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (names == NULL)
        return fs_jpath_oom(p);
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(services, i), "name"));
        if (s != NULL)
            names[k++] = s;
    }
    const char *near = fs_jpath_closest(name, names, k);
    char list[512];
    fs_jpath_list(names, k, list, sizeof list);
    int rc = near != NULL
                 ? fs_jpath_fail(p, "no service named \"%s\" (did you mean \"%s\"?)", name, near)
                 : fs_jpath_fail(p, "no service named \"%s\" (the services: %s)", name, list);
    free(names);
    return rc;
}

/* Patches copy's services (a shallow copy of the document's list) as
 * patches says, the cursor on the policy's "services". */
static int apply_patches(fs_jpath *p, const json_t *services, const json_t *patches, json_t *copy)
{
    const char *name;
    json_t *patch;
    int rc = FS_OK;
    json_object_foreach((json_t *)patches, name, patch) {
        size_t mark = fs_jpath_push_key(p, name);
        size_t i = find_service(services, name);
        if (i == SIZE_MAX)
            rc = unknown_service(p, services, name);
        else if (!json_is_object(patch))
            rc = fs_jpath_expected(p, patch, "an object: a JSON merge patch of service \"%s\"", name);
        else
            rc = check_fixed(p, json_array_get(services, i), patch);
        if (rc == FS_OK) {
            json_t *patched = json_deep_copy(json_array_get(services, i));
            if (patched == NULL || merge_patch(patched, patch) != 0 || json_array_set_new(copy, i, patched) != 0)
                rc = fs_jpath_oom(p); /* json_array_set_new released patched */
        }
        fs_jpath_pop(p, mark);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

int fs__scenario_policy_doc(fs_jpath *p, const json_t *root, const json_t *fleet, const char *policy, json_t **out)
{
    const json_t *patches = policy != NULL ? json_object_get(fleet, "services") : NULL;
    const json_t *services = json_object_get(root, "services");
    /* Without a list of services there is nothing to patch, and reading the
     * document says what is wrong with it. */
    if (patches == NULL || !json_is_array(services)) {
        *out = json_incref((json_t *)root);
        return FS_OK;
    }
    size_t mark = fs_jpath_push_key(p, "policies");
    fs_jpath_push_key(p, policy);
    fs_jpath_push_key(p, "services");
    int rc = FS_OK;
    json_t *doc = NULL, *list = NULL;
    if (!json_is_object(patches)) {
        rc = fs_jpath_expected(p, patches, "an object of service names, each with a JSON merge patch of that "
                                           "service");
    } else {
        /* Shallow copies: the document stays as it is, and only the patched
         * services are copied whole. */
        doc = json_copy((json_t *)root);
        list = json_copy((json_t *)services);
        rc = doc == NULL || list == NULL ? fs_jpath_oom(p) : apply_patches(p, services, patches, list);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK && json_object_set(doc, "services", list) != 0)
        rc = fs_jpath_oom(p);
    json_decref(list);
    if (rc != FS_OK) {
        json_decref(doc);
        return rc;
    }
    *out = doc;
    return FS_OK;
}

void fs__scenario_blame_patch(fs_jpath *p, const json_t *svc, const parse_ctx *c)
{
    const char *name = json_string_value(json_object_get(svc, "name"));
    const json_t *patches = c->policy != NULL ? json_object_get(c->fleet, "services") : NULL;
    if (p->err == NULL || name == NULL || json_object_get(patches, name) == NULL)
        return;
    size_t n = strlen(p->err->msg);
    snprintf(p->err->msg + n, sizeof p->err->msg - n, " (as patched by policies.%s.services.%s)", c->policy, name);
}

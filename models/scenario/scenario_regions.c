/*
 * scenario_regions — the top-level "regions" ({"NAME": {"utc_offset":
 * "+9h"}}), the "region" of a pool, a service or a training stream, and a
 * service's "spill" to a service of another region.
 *
 * The regions are one list, the same in every variant (results pair them
 * by index across policies): first those "regions" lists, in its order;
 * then, in order of first mention (the services, then each policy's pools
 * in document order, then the training streams), every other region named
 * when the document has no "regions", and "default" when a pool or service
 * without "region" is in it.  With "regions", a pool, service or stream may
 * name only a region it lists (or "default", which is UTC unless listed).
 * A service's pools (its decode pool too) must be in its region: traffic
 * belongs to a region, and a policy may not move it (scenario_patch.c).
 *
 * "spill" is read once every service is (its target may come later):
 * {"to": "SERVICE", "added_latency": D, "when_queue": N}.  The target is
 * another service, in another region, and neither side batches (dynamic
 * or continuous): a spilled request is served at once on a free slot
 * (models/workload/service_spill.c).  No service spills to itself, and no
 * chain of spills comes back to where it started.
 */
#include "scenario_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "quantile.h"

/* Most a spilled request's round trip may add: a minute is already far
 * beyond any network (the Earth's circumference is 0.2 s at light speed in
 * fibre). */
#define MAX_SPILL_ADDED_S 60.0

static size_t region_find(const fs_scenario *s, const char *name)
{
    for (size_t k = 0; k < s->n_regions; k++)
        if (strcmp(s->regions[k].name, name) == 0)
            return k;
    return SIZE_MAX;
}

static int region_add(fs_jpath *p, fs_scenario *s, const char *name, double offset_s)
{
    if (s->n_regions >= FS_SCENARIO_MAX_REGIONS)
        return fs_jpath_fail(p, "more than %d regions (the limit)", FS_SCENARIO_MAX_REGIONS);
    fs_region_spec *grown = realloc(s->regions, (s->n_regions + 1) * sizeof *grown);
    if (!grown)
        return fs_jpath_oom(p);
    s->regions = grown;
    s->regions[s->n_regions] = (fs_region_spec){.utc_offset_s = offset_s};
    int rc = fs__scenario_dup_into(p, &s->regions[s->n_regions].name, name);
    if (rc == FS_OK)
        s->n_regions++;
    return rc;
}

/* "utc_offset": "+9h", "-3h30m", "0h", or a JSON number of seconds; the
 * cursor on the region's object. */
static int parse_offset(fs_jpath *p, const json_t *obj, double *out)
{
    json_t *v = json_object_get(obj, "utc_offset");
    *out = 0;
    if (!v)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, "utc_offset");
    int rc = FS_OK;
    char why[128] = "";
    if (json_is_number(v)) {
        *out = json_number_value(v);
    } else if (json_is_string(v)) {
        const char *text = json_string_value(v);
        double sign = text[0] == '-' ? -1 : 1;
        if (fs_duration_parse(text + (text[0] == '-' || text[0] == '+'), out, why, sizeof why) != 0)
            rc = fs_jpath_expected(p, v, "a signed duration like \"+9h\" or \"-3h30m\" (%s)", why);
        *out *= sign;
    } else {
        rc = fs_jpath_expected(p, v, "a signed duration like \"+9h\" or \"-3h30m\"");
    }
    if (rc == FS_OK && !(*out >= FS_SCENARIO_MIN_UTC_OFFSET_S && *out <= FS_SCENARIO_MAX_UTC_OFFSET_S))
        rc = fs_jpath_expected(p, v, "an offset from -12h to +14h (the time zones there are)");
    fs_jpath_pop(p, mark);
    return rc;
}

/* The region an element of `list` names, or "default" (dflt) when it names
 * none; added when new and allowed (no "regions"; or "default"). */
static int mention(fs_jpath *p, fs_scenario *s, const json_t *list, bool dflt, bool listed)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *r = json_object_get(json_array_get(list, i), "region");
        const char *name = json_is_string(r) && json_string_length(r) > 0 ? json_string_value(r)
                           : r == NULL && dflt                             ? FS_REGION_DEFAULT
                                                                           : NULL;
        if (!name || region_find(s, name) != SIZE_MAX || (listed && strcmp(name, FS_REGION_DEFAULT) != 0))
            continue;
        int rc = region_add(p, s, name, 0);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

int fs__scenario_parse_regions(fs_jpath *p, const json_t *root, fs_scenario *s)
{
    static const char *const keys[] = {"utc_offset"};
    const json_t *regions = json_object_get(root, "regions");
    int rc = FS_OK;
    if (regions) {
        size_t mark = fs_jpath_push_key(p, "regions");
        if (!json_is_object(regions) || json_object_size(regions) == 0)
            rc = fs_jpath_expected(p, regions, "an object of named regions, each {\"utc_offset\": \"+9h\"}");
        const char *name;
        const json_t *r;
        json_object_foreach((json_t *)regions, name, r) {
            if (rc != FS_OK)
                break;
            size_t m = fs_jpath_push_key(p, name);
            double offset = 0;
            if (name[0] == '\0' || strlen(name) >= FS_GPU_NAME_MAX)
                rc = fs_jpath_fail(p, "expected a region name of 1 to %d characters", FS_GPU_NAME_MAX - 1);
            else if (!json_is_object(r))
                rc = fs_jpath_expected(p, r, "an object {\"utc_offset\": \"+9h\"}");
            else
                rc = fs_jpath_check_keys(p, r, keys, COUNT(keys));
            if (rc == FS_OK)
                rc = parse_offset(p, r, &offset);
            if (rc == FS_OK)
                rc = region_add(p, s, name, offset);
            fs_jpath_pop(p, m);
        }
        fs_jpath_pop(p, mark);
    }
    bool listed = regions != NULL;
    if (rc == FS_OK)
        rc = mention(p, s, json_object_get(root, "services"), true, listed);
    const json_t *policies = json_object_get(root, "policies");
    if (rc == FS_OK && json_is_object(policies)) {
        const char *name;
        const json_t *fleet;
        json_object_foreach((json_t *)policies, name, fleet) {
            if ((rc = mention(p, s, json_object_get(fleet, "pools"), true, listed)) != FS_OK)
                break;
        }
    } else if (rc == FS_OK) {
        rc = mention(p, s, json_object_get(root, "pools"), true, listed);
    }
    if (rc == FS_OK)
        rc = mention(p, s, json_object_get(root, "training"), false, listed);
    if (rc == FS_OK && s->n_regions == 0)
        rc = region_add(p, s, FS_REGION_DEFAULT, 0);
    return rc;
}

int fs__scenario_region_ref(fs_jpath *p, const json_t *obj, const fs_scenario *s, bool dflt, size_t *out)
{
    const char *name = NULL;
    int rc = fs_jpath_get_string(p, obj, "region", false, true, &name);
    if (rc != FS_OK)
        return rc;
    *out = name ? region_find(s, name) : dflt ? region_find(s, FS_REGION_DEFAULT) : SIZE_MAX;
    if (!name && dflt && *out == SIZE_MAX) /* fs__scenario_parse_regions saw every pool and service */
        return fs_jpath_fail(p, "internal error: region \"%s\" was not listed", FS_REGION_DEFAULT);
    if (!name || *out != SIZE_MAX)
        return FS_OK;
    char names[512] = "";
    const char *near = NULL;
    size_t near_d = SIZE_MAX, len = 0;
    for (size_t k = 0; k < s->n_regions && len < sizeof names; k++) {
        int w = snprintf(names + len, sizeof names - len, "%s\"%s\"", k ? ", " : "", s->regions[k].name);
        len += w > 0 ? (size_t)w : 0;
        fs_jpath_nearer(name, s->regions[k].name, &near_d, &near);
    }
    size_t mark = fs_jpath_push_key(p, "region");
    if (near && near_d <= (strlen(name) / 3 > 2 ? strlen(name) / 3 : 2))
        rc = fs_jpath_fail(p, "expected a region \"regions\" lists (%s), got \"%s\" (did you mean \"%s\"?)", names,
                           name, near);
    else
        rc = fs_jpath_fail(p, "expected a region \"regions\" lists (%s), got \"%s\"", names, name);
    fs_jpath_pop(p, mark);
    return rc;
}

int fs__scenario_check_service_region(fs_jpath *p, const parse_ctx *c, const fs_service_spec *out)
{
    const fs_scenario *s = c->s;
    size_t pools[2] = {out->pool, out->decode_replicas ? out->decode_pool : out->pool};
    for (size_t k = 0; k < 2; k++) {
        const fs_pool_spec *pool = &s->pools[pools[k]];
        if (pool->region == out->region)
            continue;
        size_t mark = fs_jpath_push_key(p, "region");
        int rc = fs_jpath_fail(p,
                               "service \"%s\" is in region \"%s\" but its %spool \"%s\"%s%s%s is in region \"%s\": a "
                               "service's replicas run in its own region (give the service \"region\", or use a pool "
                               "of its region)",
                               out->name, s->regions[out->region].name, k ? "decode " : "", pool->name,
                               c->policy ? " (policy \"" : "", c->policy ? c->policy : "", c->policy ? "\")" : "",
                               s->regions[pool->region].name);
        fs_jpath_pop(p, mark);
        return rc;
    }
    return FS_OK;
}

/* A daily_at time of local day in UTC: local - offset, within the day. */
int fs__scenario_training_region(fs_jpath *p, const json_t *job, const fs_scenario *s, fs_training_spec *out)
{
    int rc = fs__scenario_region_ref(p, job, s, false, &out->region);
    if (rc != FS_OK || out->region == SIZE_MAX)
        return rc;
    double offset = s->regions[out->region].utc_offset_s;
    if (out->submit_shape)
        out->submit_shape->utc_offset_s = offset;
    for (size_t k = 0; k < out->n_daily; k++) {
        double t = fmod(out->daily_at_s[k] - offset, 86400.0);
        out->daily_at_s[k] = t < 0 ? t + 86400.0 : t;
    }
    /* Sorted again: a shift wraps the late times round to the morning. */
    fs_quantile_sort(out->daily_at_s, out->n_daily);
    return FS_OK;
}

/* ---- spill ------------------------------------------------------------------ */

static size_t service_find(const fs_scenario *s, const char *name)
{
    for (size_t i = 0; i < s->n_services; i++)
        if (strcmp(s->services[i].name, name) == 0)
            return i;
    return SIZE_MAX;
}

/* services[i].spill, the cursor on services[i]. */
static int parse_spill(fs_jpath *p, const json_t *svc, size_t i, fs_scenario *s)
{
    static const char *const keys[] = {"to", "added_latency", "when_queue"};
    fs_service_spec *out = &s->services[i];
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, svc, "spill", false, &obj);
    if (rc != FS_OK || !obj)
        return rc;
    size_t mark = fs_jpath_push_key(p, "spill");
    const char *to = NULL;
    uint64_t when = 0;
    double added = 0;
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK && out->batching.kind != FS_BATCHING_NONE)
        rc = fs_jpath_fail(p, "spill is modelled for services without \"batching\" (a spilled request is served "
                              "at once on a free slot of the other service)");
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, obj, "to", true, true, &to);
    if (rc == FS_OK)
        rc = fs__scenario_get_capped_duration(p, obj, "added_latency", true, FS_JPATH_NONNEG, MAX_SPILL_ADDED_S,
                                              &added);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "when_queue", false, 0, UINT64_MAX, &when);
    size_t target = rc == FS_OK ? service_find(s, to) : SIZE_MAX;
    if (rc == FS_OK) {
        size_t m = fs_jpath_push_key(p, "to");
        const fs_service_spec *t = target != SIZE_MAX ? &s->services[target] : NULL;
        if (!t)
            rc = fs_jpath_fail(p, "expected the name of another service, got \"%s\" (no such service)", to);
        else if (target == i)
            rc = fs_jpath_fail(p, "service \"%s\" cannot spill to itself: name a service of another region", to);
        else if (t->region == out->region)
            rc = fs_jpath_fail(p, "service \"%s\" is in this service's region (\"%s\"): spill goes to another region",
                               to, s->regions[out->region].name);
        else if (t->batching.kind != FS_BATCHING_NONE)
            rc = fs_jpath_fail(p, "service \"%s\" batches: spill is modelled for services without \"batching\"", to);
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK) {
        out->spills = true;
        out->spill_to = target;
        out->spill_added_s = added;
        out->spill_when_queue = when;
    }
    fs_jpath_pop(p, mark);
    return rc;
}

/* A chain of spills from i that comes back to i, written into buf. */
static bool spill_cycle(const fs_scenario *s, size_t i, char *buf, size_t size)
{
    size_t at = s->services[i].spill_to;
    for (size_t steps = 0; s->services[i].spills && steps < s->n_services; steps++) {
        if (at != i) {
            if (!s->services[at].spills)
                return false;
            at = s->services[at].spill_to;
            continue;
        }
        size_t len = 0;
        size_t k = i;
        do {
            int w = snprintf(buf + len, size - len, "\"%s\" -> ", s->services[k].name);
            len += w > 0 && (size_t)w < size - len ? (size_t)w : 0;
            k = s->services[k].spill_to;
        } while (k != i);
        snprintf(buf + len, size - len, "\"%s\"", s->services[i].name);
        return true;
    }
    return false;
}

int fs__scenario_parse_spills(fs_jpath *p, const json_t *root, parse_ctx *c)
{
    fs_scenario *s = c->s;
    const json_t *list = json_object_get(root, "services");
    int rc = FS_OK;
    for (size_t i = 0; rc == FS_OK && i < s->n_services; i++) {
        const json_t *svc = json_array_get(list, i);
        size_t mark = fs_jpath_push_key(p, "services");
        fs_jpath_push_index(p, i);
        rc = parse_spill(p, svc, i, s);
        fs_jpath_pop(p, mark);
        if (rc == FS_ERR_INPUT)
            fs__scenario_blame_patch(p, svc, c);
    }
    char chain[512];
    for (size_t i = 0; rc == FS_OK && i < s->n_services; i++) {
        if (!spill_cycle(s, i, chain, sizeof chain))
            continue;
        size_t mark = fs_jpath_push_key(p, "services");
        fs_jpath_push_index(p, i);
        fs_jpath_push_key(p, "spill");
        rc = fs_jpath_fail(p, "a spill cycle (%s): a saturated region would hand requests back and forth; keep "
                              "one direction",
                           chain);
        fs_jpath_pop(p, mark);
    }
    return rc;
}

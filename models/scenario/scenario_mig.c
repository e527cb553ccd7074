/*
 * scenario_mig — a MIG pool's run-time layouts: "mig" as an object,
 *
 *   "mig": {"layouts": {"day": ["3g.40gb", "3g.40gb"], "night": ["1g.10gb", ...]},
 *           "start": "day",
 *           "schedule": [{"at": "07:00", "layout": "day"}, {"at": "22:00", "layout": "night"}],
 *           "reconfigure": "2m", "drain": "wait" | "evict", "on_demand": {"after": "10m"}}
 *
 * into an fs_mig_plan (scenario.h).  Every layout is placed on the pool's GPU
 * type as the array form's is (fs_mig_place, through scenario_pools.c), and
 * refused at its own path (pools[0].mig.layouts.night) with the geometry's
 * reason.  The array form stays one layout and no plan.
 *
 * "reconfigure" is required with several layouts: reference/mig.md finds no
 * published figure for destroying and creating GPU instances (only 4-5 s per
 * GPU to enable MIG mode, a different operation), so no default is assumed.
 */
#include "scenario_parse.h"

#include <stdlib.h>
#include <string.h>

/* The index of the layout called `name`, or SIZE_MAX. */
static size_t layout_index(const fs_mig_plan *plan, const char *name)
{
    for (size_t k = 0; k < plan->n_layouts; k++)
        if (strcmp(plan->names[k], name) == 0)
            return k;
    return SIZE_MAX;
}

/* obj[key] (the cursor on obj) as the name of one of the plan's layouts. */
static int get_layout_ref(fs_jpath *p, const json_t *obj, const char *key, const fs_mig_plan *plan,
                          size_t *out)
{
    const char *name = NULL;
    int rc = fs_jpath_get_string(p, obj, key, true, true, &name);
    if (rc != FS_OK)
        return rc;
    *out = layout_index(plan, name);
    if (*out != SIZE_MAX)
        return FS_OK;
    size_t mark = fs_jpath_push_key(p, key);
    rc = fs__scenario_choice_error(p, json_object_get(obj, key), "a layout of \"layouts\"",
                                   (const char *const *)plan->names, plan->n_layouts);
    fs_jpath_pop(p, mark);
    return rc;
}

/* "layouts": an object of 1 to FS_SCENARIO_MAX_MIG_LAYOUTS named layouts,
 * in document order. */
static int parse_layouts(fs_jpath *p, const json_t *obj, const fs_gpu_type *gpu, fs_mig_plan *plan)
{
    json_t *layouts = NULL;
    int rc = fs_jpath_get_object(p, obj, "layouts", true, &layouts);
    if (rc != FS_OK)
        return rc;
    size_t mark = fs_jpath_push_key(p, "layouts");
    size_t n = json_is_object(layouts) ? json_object_size(layouts) : 0;
    if (n == 0 || n > FS_SCENARIO_MAX_MIG_LAYOUTS)
        rc = fs_jpath_expected(p, layouts, "an object of 1 to %d named layouts, each an array of MIG profile "
                                           "names like [\"3g.40gb\", \"3g.40gb\"]",
                               FS_SCENARIO_MAX_MIG_LAYOUTS);
    const char *name;
    json_t *list;
    json_object_foreach(rc == FS_OK ? layouts : NULL, name, list) {
        size_t m = fs_jpath_push_key(p, name);
        rc = fs__scenario_parse_mig_layout(p, list, gpu, &plan->layouts[plan->n_layouts]);
        fs_jpath_pop(p, m);
        if (rc == FS_OK)
            rc = fs__scenario_dup_into(p, &plan->names[plan->n_layouts], name);
        if (rc != FS_OK)
            break;
        plan->n_layouts++;
    }
    fs_jpath_pop(p, mark);
    return rc;
}

static int switch_cmp(const void *a, const void *b)
{
    const fs_mig_switch *x = a, *y = b;
    return (x->at_s > y->at_s) - (x->at_s < y->at_s);
}

/* "schedule": [{"at": "HH:MM", "layout": name}, ...], each time of day once,
 * sorted by time; it repeats every day. */
static int parse_schedule(fs_jpath *p, const json_t *obj, fs_mig_plan *plan)
{
    static const char *const keys[] = {"at", "layout"};
    json_t *list = NULL;
    int rc = fs_jpath_get_array(p, obj, "schedule", false, true, &list);
    if (rc != FS_OK || list == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "schedule"), n = json_array_size(list);
    if (n > FS_SCENARIO_MAX_MIG_SWITCHES)
        rc = fs_jpath_fail(p, "expected at most %d entries, got %zu", FS_SCENARIO_MAX_MIG_SWITCHES, n);
    for (size_t i = 0; rc == FS_OK && i < n; i++) {
        const json_t *e = json_array_get(list, i);
        fs_mig_switch *sw = &plan->schedule[i];
        size_t m = fs_jpath_push_index(p, i);
        if (!json_is_object(e))
            rc = fs_jpath_expected(p, e, "an object {\"at\": \"HH:MM\", \"layout\": name}");
        if (rc == FS_OK)
            rc = fs_jpath_check_keys(p, e, keys, COUNT(keys));
        if (rc == FS_OK)
            rc = fs_jpath_get_duration(p, e, "at", true, FS_JPATH_NONNEG, &sw->at_s);
        if (rc == FS_OK && sw->at_s >= 86400.0) {
            size_t k = fs_jpath_push_key(p, "at");
            rc = fs_jpath_expected(p, json_object_get(e, "at"), "a clock time before 24:00");
            fs_jpath_pop(p, k);
        }
        for (size_t j = 0; rc == FS_OK && j < i; j++) {
            if (plan->schedule[j].at_s == sw->at_s) {
                size_t k = fs_jpath_push_key(p, "at");
                rc = fs_jpath_fail(p, "the same time of day as schedule[%zu]: one layout per instant", j);
                fs_jpath_pop(p, k);
            }
        }
        if (rc == FS_OK)
            rc = get_layout_ref(p, e, "layout", plan, &sw->layout);
        fs_jpath_pop(p, m);
    }
    fs_jpath_pop(p, mark);
    if (rc == FS_OK) {
        plan->n_schedule = n;
        qsort(plan->schedule, n, sizeof *plan->schedule, switch_cmp);
    }
    return rc;
}

/* "on_demand": {"after": D}, D > 0, with two layouts or more. */
static int parse_on_demand(fs_jpath *p, const json_t *obj, fs_mig_plan *plan)
{
    static const char *const keys[] = {"after"};
    json_t *od = NULL;
    int rc = fs_jpath_get_object(p, obj, "on_demand", false, &od);
    if (rc != FS_OK || od == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "on_demand");
    if (plan->n_layouts < 2)
        rc = fs_jpath_fail(p, "needs two layouts or more in \"layouts\": there is none to switch to");
    if (rc == FS_OK)
        rc = fs_jpath_check_keys(p, od, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, od, "after", true, FS_JPATH_POSITIVE, &plan->on_demand_after_s);
    fs_jpath_pop(p, mark);
    return rc;
}

/* A pool whose GPUs change layout keeps its size: an elastic or reclaimed
 * GPU would have to arrive in, or leave from, any layout (not built). */
int fs__scenario_check_mig_pool(fs_jpath *p, const json_t *pool, const fs_pool_spec *spec)
{
    if (spec->mig_plan == NULL || spec->mig_plan->n_layouts < 2)
        return FS_OK;
    static const char *const keys[] = {"autoscale", "reclaim_per_hour"};
    for (size_t i = 0; i < COUNT(keys); i++) {
        if (json_object_get(pool, keys[i]) == NULL)
            continue;
        size_t mark = fs_jpath_push_key(p, keys[i]);
        int rc = fs_jpath_fail(p, "not allowed on a pool with several MIG layouts (\"mig\": {\"layouts\"}): "
                                  "its GPUs change layout at run time, so it keeps a fixed size");
        fs_jpath_pop(p, mark);
        return rc;
    }
    return FS_OK;
}

int fs__scenario_parse_mig_plan(fs_jpath *p, const json_t *obj, const fs_gpu_type *gpu, fs_pool_spec *out)
{
    static const char *const keys[] = {"layouts", "start", "schedule", "reconfigure", "drain", "on_demand"};
    static const char *const drains[] = {[FS_MIG_DRAIN_WAIT] = "wait", [FS_MIG_DRAIN_EVICT] = "evict"};
    fs_mig_plan *plan = calloc(1, sizeof *plan);
    if (plan == NULL)
        return fs_jpath_oom(p);
    out->mig_plan = plan; /* hung on the pool at once: destroy frees a half-read one */
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = parse_layouts(p, obj, gpu, plan);
    bool several = plan->n_layouts > 1;
    if (rc == FS_OK && (several || json_object_get(obj, "start") != NULL))
        rc = get_layout_ref(p, obj, "start", plan, &plan->start);
    if (rc == FS_OK)
        rc = parse_schedule(p, obj, plan);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "reconfigure", several, FS_JPATH_NONNEG, &plan->reconfigure_s);
    int drain = FS_MIG_DRAIN_WAIT;
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, obj, "drain", "a drain policy", drains, COUNT(drains), &drain);
    plan->drain = (fs_mig_drain)drain;
    if (rc == FS_OK)
        rc = parse_on_demand(p, obj, plan);
    if (rc == FS_OK)
        out->mig = plan->layouts[plan->start];
    return rc;
}

void fs__scenario_free_mig_plan(fs_mig_plan *plan)
{
    if (plan == NULL)
        return;
    for (size_t k = 0; k < plan->n_layouts; k++)
        free(plan->names[k]);
    free(plan);
}

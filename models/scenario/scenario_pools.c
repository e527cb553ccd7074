/*
 * scenario_pools — one member of "pools" (or of a policy's "pools"): its
 * GPUs, how each GPU is partitioned (MIG, time slicing or fractional shares),
 * its price class, placement policy and latency class, and the autoscaler
 * that makes it elastic.  Also the placement policies' names (fs_scenario_placement_find,
 * fs_scenario_placement_names).
 */
#include "scenario_parse.h"

#include <assert.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "mig.h"

/* Time-slicing defaults: the NVIDIA driver's default time slice, and an
 * assumed order of magnitude for one context switch (not a measurement,
 * which is why a scenario can set both).  MAX_TENANTS bounds the format;
 * it is not a driver limit. */
#define DEFAULT_SLICE_S 1.024e-3
#define DEFAULT_SWITCH_OVERHEAD_S 200e-6
#define MAX_TENANTS 64
#define DEFAULT_PLACEMENT "best_fit"

/* Fractional pools: 8 replicas a GPU unless the scenario says (an
 * assumption, a typical MPS deployment's few clients); at most 48, the
 * clients one MPS server takes per GPU on Volta and later (NVIDIA's MPS
 * documentation).  Oversubscription up to 4 bounds the format (shares
 * adding up to 4 GPUs on one: every request 4x slower), not a driver. */
#define DEFAULT_SEATS 8
#define MAX_SEATS 48
#define MAX_OVERSUBSCRIPTION 4.0

/* Elastic pools: a new GPU is usable this long after it is asked for (node
 * ready ~30-40 s typical, 80-100 s observed, aws/karpenter-provider-aws#6165
 * and #3102; reference/costs.md), and goes back after this long idle. */
#define DEFAULT_PROVISION_S 90.0
#define DEFAULT_IDLE_RELEASE_S 600.0

/* The layout list (the cursor is on "mig") placed on one GPU of the pool's
 * type; fs_mig_place's reason is passed on as it is. */
static int parse_mig(fs_jpath *p, const json_t *list, const fs_gpu_type *gpu, fs_mig_layout *out)
{
    size_t n = json_is_array(list) ? json_array_size(list) : 0;
    if (n == 0)
        return fs_jpath_expected(p, list,
                                 "an array of 1 to %d MIG profile names like \"3g.40gb\" or "
                                 "\"3g.40gb@4\"",
                                 FS_MIG_MAX_INSTANCES);
    if (n > FS_MIG_MAX_INSTANCES)
        return fs_jpath_fail(p, "expected at most %d MIG instances per GPU, got %zu",
                             FS_MIG_MAX_INSTANCES, n);
    const char *names[FS_MIG_MAX_INSTANCES];
    for (size_t j = 0; j < n; j++) {
        size_t m = fs_jpath_push_index(p, j);
        int rc = fs_jpath_string(p, json_array_get(list, j), true, &names[j]);
        fs_jpath_pop(p, m);
        if (rc != FS_OK)
            return rc;
    }
    char why[512] = "";
    if (fs_mig_place(gpu, names, n, out, why, sizeof why) != 0)
        return fs_jpath_fail(p, "%s", why[0] != '\0' ? why : "invalid MIG layout");
    return FS_OK;
}

int fs__scenario_parse_mig_layout(fs_jpath *p, const json_t *list, const fs_gpu_type *gpu, fs_mig_layout *out)
{
    return parse_mig(p, list, gpu, out);
}

static int parse_time_slicing(fs_jpath *p, const json_t *obj, fs_time_slicing *ts)
{
    static const char *const keys[] = {"tenants", "slice", "switch_overhead",
                                       "contention_exponent"};
    if (!json_is_object(obj))
        return fs_jpath_expected(p, obj,
                                 "an object {\"tenants\", \"slice\", \"switch_overhead\", "
                                 "\"contention_exponent\"}");
    ts->slice_s = DEFAULT_SLICE_S;
    ts->switch_overhead_s = DEFAULT_SWITCH_OVERHEAD_S;
    ts->contention_exponent = 1.0;
    uint64_t tenants = 0;
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "tenants", true, 2, MAX_TENANTS, &tenants);
    ts->tenants = (uint32_t)tenants;
    if (rc == FS_OK)
        rc = fs__scenario_get_floored_duration(p, obj, "slice", false, FS_SCENARIO_MIN_TIME_SLICE_S,
                                               &ts->slice_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "switch_overhead", false, FS_JPATH_NONNEG,
                                   &ts->switch_overhead_s);
    if (rc == FS_OK)
        rc = fs_jpath_get_number(p, obj, "contention_exponent", false, FS_JPATH_NONNEG,
                                 &ts->contention_exponent);
    return rc;
}

static const char *const share_mode_names[] = {[FS_SHARE_MPS] = "mps", [FS_SHARE_VIRTUAL] = "virtual"};

/* "fractional": {"seats", "oversubscription", "mode"} (the cursor is on it). */
static int parse_fractional(fs_jpath *p, const json_t *obj, fs_fractional *fr)
{
    static const char *const keys[] = {"seats", "oversubscription", "mode"};
    if (!json_is_object(obj))
        return fs_jpath_expected(p, obj, "an object {\"seats\", \"oversubscription\", \"mode\"}");
    uint64_t seats = DEFAULT_SEATS;
    int mode = FS_SHARE_MPS;
    fr->oversubscription = 1.0;
    int rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "seats", false, 1, MAX_SEATS, &seats);
    fr->seats = (uint32_t)seats;
    /* Below 1 the shares could never use the whole GPU. */
    if (rc == FS_OK)
        rc = fs__scenario_get_bounded(p, obj, "oversubscription", false, FS_JPATH_POSITIVE, 1,
                                      MAX_OVERSUBSCRIPTION, "x the GPU's compute", &fr->oversubscription);
    if (rc == FS_OK)
        rc = fs__scenario_get_choice(p, obj, "mode", "a sharing mode", share_mode_names,
                                     COUNT(share_mode_names), &mode);
    fr->mode = (fs_share_mode)mode;
    return rc;
}

/* "mig", "time_slicing", "fractional" or none of them (whole GPUs). */
static int parse_partitioning(fs_jpath *p, const json_t *pool, const fs_gpu_type *gpu,
                              fs_pool_spec *out)
{
    static const char *const kinds[] = {"mig", "time_slicing", "fractional"};
    static const fs_partitioning as[] = {FS_PARTITION_MIG, FS_PARTITION_TIME_SLICED,
                                         FS_PARTITION_FRACTIONAL};
    size_t k = COUNT(kinds);
    out->partitioning = FS_PARTITION_WHOLE;
    for (size_t j = 0; j < COUNT(kinds); j++) {
        if (json_object_get(pool, kinds[j]) == NULL)
            continue;
        if (k == COUNT(kinds)) {
            k = j;
            continue;
        }
        if (j == 1) /* the message time-sliced pools have always had */
            return fs_jpath_fail(p, "\"mig\" and \"time_slicing\" exclude each other (a GPU is either "
                                    "cut into MIG instances or time-sliced); keep one");
        return fs_jpath_fail(p, "\"%s\" and \"fractional\" exclude each other (a GPU is %s or shared "
                                "by fractional replicas); keep one",
                             kinds[k], k == 0 ? "either cut into MIG instances" : "either time-sliced");
    }
    if (k == COUNT(kinds))
        return FS_OK;
    json_t *v = json_object_get(pool, kinds[k]);
    size_t mark = fs_jpath_push_key(p, kinds[k]);
    int rc = k == 0   ? json_is_object(v) ? fs__scenario_parse_mig_plan(p, v, gpu, out) : parse_mig(p, v, gpu, &out->mig)
             : k == 1 ? parse_time_slicing(p, v, &out->time_slicing)
                      : parse_fractional(p, v, &out->fractional);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK)
        out->partitioning = as[k];
    return rc;
}

static const char *const price_names[] = {
    [FS_PRICE_ON_DEMAND] = "on_demand", [FS_PRICE_SPOT] = "spot"};

static int parse_price(fs_jpath *p, const json_t *pool, fs_price_class *out)
{
    *out = FS_PRICE_ON_DEMAND;
    json_t *v = json_object_get(pool, "price");
    if (v == NULL)
        return FS_OK;
    for (size_t i = 0; json_is_string(v) && i < COUNT(price_names); i++) {
        if (strcmp(json_string_value(v), price_names[i]) == 0) {
            *out = (fs_price_class)i;
            return FS_OK;
        }
    }
    size_t mark = fs_jpath_push_key(p, "price");
    int rc = fs__scenario_choice_error(p, v, "a price class", price_names, COUNT(price_names));
    fs_jpath_pop(p, mark);
    return rc;
}

static const char *const placement_names[FS_PLACEMENT_KINDS] = {
    [FS_PLACEMENT_BEST_FIT] = "best_fit", [FS_PLACEMENT_FIRST_FIT] = "first_fit", [FS_PLACEMENT_FGD] = "fgd"};

int fs_scenario_placement_find(const char *name)
{
    for (size_t i = 0; i < FS_PLACEMENT_KINDS; i++)
        if (strcmp(placement_names[i], name) == 0)
            return (int)i;
    return -1;
}

const char *const *fs_scenario_placement_names(size_t *count)
{
    *count = FS_PLACEMENT_KINDS;
    return placement_names;
}

static int parse_placement(fs_jpath *p, const json_t *pool, int *out)
{
    *out = fs_scenario_placement_find(DEFAULT_PLACEMENT);
    assert(*out >= 0); /* the documented default is one of placement_names */
    json_t *v = json_object_get(pool, "placement");
    if (v == NULL)
        return FS_OK;
    int k = json_is_string(v) ? fs_scenario_placement_find(json_string_value(v)) : -1;
    if (k >= 0) {
        *out = k;
        return FS_OK;
    }
    size_t n;
    const char *const *names = fs_scenario_placement_names(&n);
    size_t mark = fs_jpath_push_key(p, "placement");
    int rc = fs__scenario_choice_error(p, v, "a placement policy", names, n);
    fs_jpath_pop(p, mark);
    return rc;
}

static const char *const class_names[] = {
    [FS_CLASS_SERVING] = "serving", [FS_CLASS_BATCH] = "batch", [FS_CLASS_SPOT] = "spot"};

/* "autoscale": {"min", "max", "provision", "idle"} makes the pool elastic:
 * `gpus` is its starting size, and min <= gpus <= max.  Defaults first, so
 * a fixed pool has min = max = gpus and the documented delays too. */
static int parse_pool_autoscale(fs_jpath *p, const json_t *pool, fs_pool_spec *out)
{
    static const char *const keys[] = {"min", "max", "provision", "idle"};
    out->elastic = false;
    out->min_gpus = out->max_gpus = out->gpus;
    int e = fs_dist_deterministic(&out->provision_delay, DEFAULT_PROVISION_S);
    assert(e == 0);
    (void)e;
    out->idle_release_s = DEFAULT_IDLE_RELEASE_S;
    json_t *obj = NULL;
    int rc = fs_jpath_get_object(p, pool, "autoscale", false, &obj);
    if (rc != FS_OK || obj == NULL)
        return rc;
    size_t mark = fs_jpath_push_key(p, "autoscale");
    uint64_t min = 0, max = 0;
    rc = fs_jpath_check_keys(p, obj, keys, COUNT(keys));
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "min", true, 0, FS_SCENARIO_MAX_GPUS, &min);
    if (rc == FS_OK)
        rc = fs_jpath_get_uint(p, obj, "max", true, 1, FS_SCENARIO_MAX_GPUS, &max);
    const char *bad = rc != FS_OK ? NULL : min > out->gpus ? "min" : max < out->gpus ? "max" : NULL;
    if (bad != NULL) {
        size_t m = fs_jpath_push_key(p, bad);
        rc = fs_jpath_expected(p, json_object_get(obj, bad),
                               "an integer no %s than the pool's starting \"gpus\" (%" PRIu32
                               "): min <= gpus <= max",
                               strcmp(bad, "min") == 0 ? "larger" : "smaller", out->gpus);
        fs_jpath_pop(p, m);
    }
    if (rc == FS_OK)
        rc = fs__scenario_parse_dist(p, obj, "provision", false, &out->provision_delay);
    if (rc == FS_OK)
        rc = fs_jpath_get_duration(p, obj, "idle", false, FS_JPATH_POSITIVE,
                                   &out->idle_release_s);
    fs_jpath_pop(p, mark);
    if (rc == FS_OK) {
        out->elastic = true;
        out->min_gpus = (uint32_t)min;
        out->max_gpus = (uint32_t)max;
    }
    return rc;
}

/* "class" and, on a spot pool only, "reclaim_per_hour". */
static int parse_pool_class(fs_jpath *p, const json_t *pool, fs_pool_spec *out)
{
    int k = FS_CLASS_SERVING;
    int rc = fs__scenario_get_choice(p, pool, "class", "a pool class", class_names,
                                     COUNT(class_names), &k);
    out->class = (fs_pool_class)k;
    out->reclaim_per_gpu_hour = 0;
    if (rc != FS_OK || json_object_get(pool, "reclaim_per_hour") == NULL)
        return rc;
    if (out->class != FS_CLASS_SPOT) {
        size_t mark = fs_jpath_push_key(p, "reclaim_per_hour");
        rc = fs_jpath_fail(p,
                           "allowed only on a pool of \"class\": \"spot\" (this pool's class is "
                           "\"%s\"); set \"class\": \"spot\" or remove \"reclaim_per_hour\"",
                           class_names[out->class]);
        fs_jpath_pop(p, mark);
        return rc;
    }
    return fs__scenario_get_capped(p, pool, "reclaim_per_hour", false, FS_JPATH_NONNEG,
                                   FS_SCENARIO_MAX_RECLAIM_PER_HOUR, "per GPU-hour",
                                   &out->reclaim_per_gpu_hour);
}

int fs__scenario_parse_pool(fs_jpath *p, const json_t *pool, size_t index, parse_ctx *c)
{
    static const char *const keys[] = {
        "name",  "gpu",       "gpus",  "mig",       "time_slicing",    "fractional",
        "price", "placement", "class", "autoscale", "reclaim_per_hour", "region"};
    fs_scenario *s = c->s;
    fs_pool_spec *out = &s->pools[index];
    if (!json_is_object(pool))
        return fs_jpath_expected(p, pool, "an object describing a pool");
    int rc = fs_jpath_check_keys(p, pool, keys, COUNT(keys));
    const char *name = NULL, *gpu = NULL;
    if (rc == FS_OK)
        rc = fs_jpath_get_string(p, pool, "name", true, true, &name);
    for (size_t j = 0; rc == FS_OK && j < index; j++) {
        if (strcmp(s->pools[j].name, name) == 0) {
            size_t mark = fs_jpath_push_key(p, "name");
            rc = fs_jpath_fail(p, "duplicate pool name \"%s\" (also pools[%zu])", name, j);
            fs_jpath_pop(p, mark);
        }
    }
    if (rc == FS_OK)
        rc = fs__scenario_dup_into(p, &out->name, name);
    if (rc == FS_OK)
        rc = fs__scenario_region_ref(p, pool, s, true, &out->region);
    if (rc == FS_OK)
        rc = fs__scenario_parse_gpu_ref(p, c, pool, "gpu", true, &out->gpu_type, &gpu);
    if (rc == FS_OK)
        rc = fs__scenario_dup_into(p, &out->gpu, gpu);
    uint64_t gpus = 0;
    if (rc == FS_OK)
        /* An elastic pool may start empty and grow on demand. */
        rc = fs_jpath_get_uint(p, pool, "gpus", true, json_object_get(pool, "autoscale") ? 0 : 1,
                               FS_SCENARIO_MAX_GPUS, &gpus);
    out->gpus = (uint32_t)gpus;
    if (rc == FS_OK)
        rc = parse_partitioning(p, pool, &s->gpu_types[out->gpu_type], out);
    if (rc == FS_OK)
        rc = parse_price(p, pool, &out->price);
    if (rc == FS_OK)
        rc = parse_placement(p, pool, &out->placement);
    if (rc == FS_OK && out->placement == FS_PLACEMENT_FGD && out->partitioning != FS_PARTITION_FRACTIONAL) {
        size_t mark = fs_jpath_push_key(p, "placement");
        rc = fs_jpath_fail(p, "\"fgd\" places the replicas of a fractional pool (\"fractional\": {...}) by "
                              "their compute shares; use \"best_fit\" or \"first_fit\" here");
        fs_jpath_pop(p, mark);
    }
    if (rc == FS_OK)
        rc = parse_pool_class(p, pool, out);
    if (rc == FS_OK)
        rc = parse_pool_autoscale(p, pool, out);
    if (rc == FS_OK)
        rc = fs__scenario_check_mig_pool(p, pool, out);
    bool ts = out->partitioning == FS_PARTITION_TIME_SLICED;
    uint64_t seats = (uint64_t)(out->max_gpus > out->gpus ? out->max_gpus : out->gpus) *
                     (fs_pool_shared(out) ? fs_pool_units_per_gpu(out) : 0);
    if (rc == FS_OK && seats > FS_SCENARIO_MAX_SHARED_SEATS) {
        size_t mark = fs_jpath_push_key(p, ts ? "time_slicing" : "fractional");
        rc = fs_jpath_fail(p,
                           "%" PRIu64 " seats (GPUs x %s), more than the %d a %s pool "
                           "may have (the limit); use whole GPUs or MIG for a pool this large",
                           seats, ts ? "tenants" : "seats", FS_SCENARIO_MAX_SHARED_SEATS,
                           ts ? "time-sliced" : "fractional");
        fs_jpath_pop(p, mark);
    }
    return rc;
}

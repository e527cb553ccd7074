#include "placement.h"
#include "placement_frac.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- policies ------------------------------------------------------------- */

/* The unit with the least room that still fits (least memory wasted), then
 * the fewest SMs (keep big slices for big models), then the lowest index. */
static size_t fs__best_fit(const fs_unit *units, const double *room, size_t n, double need_gb)
{
    size_t best = FS_UNPLACED;
    for (size_t u = 0; u < n; u++) {
        if (room[u] < need_gb)
            continue;
        if (best == FS_UNPLACED || room[u] < room[best] ||
            (room[u] == room[best] && units[u].sms < units[best].sms))
            best = u;
    }
    return best;
}

/* The first unit that fits, in GPU and slot order: what a naive scheduler does. */
static size_t fs__first_fit(const fs_unit *units, const double *room, size_t n, double need_gb)
{
    (void)units;
    for (size_t u = 0; u < n; u++)
        if (room[u] >= need_gb)
            return u;
    return FS_UNPLACED;
}

/* Indexed by the scenario's fs_placement_kind: the scenario names the choices, this module
 * implements them.  "fgd" places fractional pools only (placement_frac.c, which does its own
 * best and first fit by compute and memory); the scenario refuses it on other pools. */
static const fs_placement_policy policies[FS_PLACEMENT_KINDS] = {
    [FS_PLACEMENT_BEST_FIT] = fs__best_fit,
    [FS_PLACEMENT_FIRST_FIT] = fs__first_fit,
};

/* ---- units ---------------------------------------------------------------- */

/* The profile of a GPU's k-th MIG unit, its layout in *layout. */
static const fs_mig_profile *fs__mig_unit(const fs_pool_spec *pool, size_t k, uint16_t *layout)
{
    *layout = 0;
    if (pool->mig_plan == NULL)
        return pool->mig.profiles[k];
    for (; k >= pool->mig_plan->layouts[*layout].n; (*layout)++)
        k -= pool->mig_plan->layouts[*layout].n;
    return pool->mig_plan->layouts[*layout].profiles[k];
}

static int fs__make_units(const fs_scenario *s, const fs_pool_spec *pool, fs_pool_units *out)
{
    const fs_gpu_type *gpu = &s->gpu_types[pool->gpu_type];
    size_t per_gpu = fs_pool_units_per_gpu(pool);
    uint32_t max_gpus = pool->max_gpus > pool->gpus ? pool->max_gpus : pool->gpus;
    out->n_units = per_gpu * pool->gpus;
    out->n_units_max = per_gpu * max_gpus;
    out->units = calloc(out->n_units_max, sizeof *out->units);
    if (!out->units)
        return ENOMEM;
    size_t u = 0;
    for (uint32_t g = 0; g < max_gpus; g++) {
        for (size_t k = 0; k < per_gpu; k++, u++) {
            fs_unit *unit = &out->units[u];
            switch (pool->partitioning) {
            case FS_PARTITION_WHOLE:
                *unit = (fs_unit){g, "whole", gpu->memory_gb, gpu->sms, 1.0, 1.0, FS_UNPLACED, 0, 0};
                break;
            case FS_PARTITION_MIG: {
                /* A scenario may override the GPU's SM count but not the MIG
                 * table's, so the share is capped at the whole GPU. */
                uint16_t layout;
                const fs_mig_profile *prof = fs__mig_unit(pool, k, &layout);
                double share = fmin(1.0, (double)prof->sms / gpu->sms);
                *unit = (fs_unit){g, prof->name, prof->memory_gb, prof->sms,
                                  (double)prof->compute_slices / FS_MIG_COMPUTE_SLICES, share,
                                  FS_UNPLACED, 0, layout};
                break;
            }
            case FS_PARTITION_TIME_SLICED:
                *unit = (fs_unit){g, "time-slice", gpu->memory_gb, gpu->sms,
                                  1.0 / pool->time_slicing.tenants, 1.0, FS_UNPLACED, 0, 0};
                break;
            case FS_PARTITION_FRACTIONAL:
                /* Its shares are its replica's, set when one is placed here
                 * (placement_frac.c) or granted it (the fleet's pool). */
                *unit = (fs_unit){g, pool->fractional.mode == FS_SHARE_MPS ? "mps" : "virtual",
                                  gpu->memory_gb, gpu->sms, 0, 0, FS_UNPLACED, 0, 0};
                break;
            }
            out->start_units += g < pool->gpus && fs_unit_at_start(pool, unit);
        }
    }
    return 0;
}

/* Replicas are placed largest footprint first (best fit decreasing), ties in
 * service then replica order, so placement is deterministic. */
static int fs__by_need(const void *pa, const void *pb)
{
    const fs__replica_ref *a = pa, *b = pb;
    if (a->need_gb != b->need_gb)
        return a->need_gb > b->need_gb ? -1 : 1;
    return fs__replica_ref_order(a, b);
}

int fs__replica_ref_order(const fs__replica_ref *a, const fs__replica_ref *b)
{
    if (a->service != b->service)
        return a->service < b->service ? -1 : 1;
    return a->replica < b->replica ? -1 : (a->replica > b->replica);
}

fs__replica_ref *fs__replica_refs(const fs_scenario *s, size_t p, size_t *n)
{
    size_t n_refs = 0;
    for (size_t i = 0; i < s->n_services; i++)
        for (uint32_t r = 0; r < fs_service_placed(&s->services[i]); r++)
            n_refs += fs_service_replica_pool(&s->services[i], r) == p;
    fs__replica_ref *refs = malloc((n_refs ? n_refs : 1) * sizeof *refs);
    size_t k = 0;
    for (size_t i = 0; refs && i < s->n_services; i++)
        for (uint32_t r = 0; r < fs_service_placed(&s->services[i]); r++)
            if (fs_service_replica_pool(&s->services[i], r) == p)
                refs[k++] = (fs__replica_ref){i, r, s->services[i].memory_gb};
    *n = n_refs;
    return refs;
}

int fs__replica_refused(const fs_scenario *s, const fs__replica_ref *ref, const char *need, const char *free_desc,
                        fs_error *err)
{
    const fs_service_spec *svc = &s->services[ref->service];
    bool decode = ref->replica >= svc->replicas;
    return fs_error_set(err, FS_ERR_INPUT,
                        "%s: services[%zu] (%s): %sreplica %u of %u %s; no free unit in pool \"%s\" fits (%s)",
                        s->path, ref->service, svc->name, decode ? "decode " : "",
                        ref->replica + 1 - (decode ? svc->replicas : 0),
                        decode ? svc->decode_replicas : svc->replicas, need,
                        s->pools[fs_service_replica_pool(svc, ref->replica)].name, free_desc);
}

/* ---- candidates ----------------------------------------------------------- */

/* Both policies break ties by unit index, so of a group of interchangeable
 * units only the group's lowest free one can ever be chosen.  Each placement
 * then looks at one candidate per group instead of at every unit: O(replicas
 * x groups), not O(replicas x units), which at 20,000 GPUs is the difference
 * between instant and minutes.  Groups are units of equal memory and SMs
 * (whole GPUs: one group; MIG: one per profile), or, time-sliced, the seats
 * of one GPU, whose room depends on what that GPU already holds. */
typedef struct fs__groups {
    size_t *next;    /* [n_units]: the next unit of u's group, or FS_UNPLACED */
    size_t *head;    /* [n_cand]: each group's lowest free unit, ascending */
    fs_unit *cand;   /* [n_cand]: copies of those units, as the policy reads them */
    double *room;    /* [n_cand]: memory a replica could use there */
    size_t n_cand;
} fs__groups;

static void fs__groups_fini(fs__groups *g)
{
    free(g->next);
    free(g->head);
    free(g->cand);
    free(g->room);
}

static double fs__unit_room(const fs_pool_spec *pool, const fs_unit *unit, const double *gpu_used)
{
    return pool->partitioning == FS_PARTITION_TIME_SLICED ? unit->memory_gb - gpu_used[unit->gpu]
                                                          : unit->memory_gb;
}

/* Builds the groups of the pool's starting units; ENOMEM or 0. */
static int fs__groups_init(const fs_pool_spec *pool, const fs_pool_units *pu, fs__groups *g)
{
    size_t n = pu->n_units;
    *g = (fs__groups){0};
    g->next = malloc((n ? n : 1) * sizeof *g->next);
    g->head = malloc((n ? n : 1) * sizeof *g->head);
    g->cand = malloc((n ? n : 1) * sizeof *g->cand);
    g->room = malloc((n ? n : 1) * sizeof *g->room);
    size_t *last = malloc((n ? n : 1) * sizeof *last);
    if (!g->next || !g->head || !g->cand || !g->room || !last) {
        free(last);
        fs__groups_fini(g);
        *g = (fs__groups){0}; /* the caller finis it again */
        return ENOMEM;
    }
    bool by_gpu = pool->partitioning == FS_PARTITION_TIME_SLICED;
    for (size_t u = 0; u < n; u++) {
        const fs_unit *unit = &pu->units[u];
        if (!fs_unit_at_start(pool, unit)) { /* another layout's: not placed on */
            g->next[u] = FS_UNPLACED;
            continue;
        }
        /* Groups in order of their first unit, so heads start ascending.  A
         * pool has a handful of unit shapes, so the search is short; seats of
         * one GPU are contiguous, so by GPU only the last group can match. */
        size_t k = by_gpu ? g->n_cand - (g->n_cand > 0) : 0;
        for (; k < g->n_cand; k++) {
            const fs_unit *first = &pu->units[g->head[k]];
            if (by_gpu ? first->gpu == unit->gpu
                       : first->memory_gb == unit->memory_gb && first->sms == unit->sms)
                break;
        }
        g->next[u] = FS_UNPLACED;
        if (k < g->n_cand) {
            g->next[last[k]] = u;
        } else {
            g->head[k] = u;
            g->cand[k] = *unit;
            g->room[k] = unit->memory_gb;
            g->n_cand++;
        }
        last[k] = u;
    }
    free(last);
    return 0;
}

/* Candidate i's unit is taken: its group moves on to its next free unit
 * (kept in ascending order of heads), or leaves when it has none.  The room
 * of a time-sliced GPU shrinks by what was placed on it. */
static void fs__groups_take(const fs_pool_spec *pool, const fs_pool_units *pu, const double *gpu_used,
                            fs__groups *g, size_t i)
{
    size_t u = g->next[g->head[i]];
    if (u == FS_UNPLACED) {
        size_t tail = g->n_cand - i - 1;
        memmove(&g->head[i], &g->head[i + 1], tail * sizeof *g->head);
        memmove(&g->cand[i], &g->cand[i + 1], tail * sizeof *g->cand);
        memmove(&g->room[i], &g->room[i + 1], tail * sizeof *g->room);
        g->n_cand--;
        return;
    }
    g->head[i] = u;
    g->cand[i] = pu->units[u];
    g->room[i] = fs__unit_room(pool, &pu->units[u], gpu_used);
    for (; i + 1 < g->n_cand && g->head[i] > g->head[i + 1]; i++) {
        size_t h = g->head[i];
        fs_unit c = g->cand[i];
        double r = g->room[i];
        g->head[i] = g->head[i + 1], g->cand[i] = g->cand[i + 1], g->room[i] = g->room[i + 1];
        g->head[i + 1] = h, g->cand[i + 1] = c, g->room[i + 1] = r;
    }
}

/* Memory a replica could use on each unit given what is placed already; -1
 * for taken units.  Time-sliced seats share their GPU's memory. */
static void fs__room(const fs_pool_spec *pool, const fs_pool_units *pu, const double *gpu_used,
                     double *room)
{
    for (size_t u = 0; u < pu->n_units; u++) {
        const fs_unit *unit = &pu->units[u];
        room[u] = unit->service != FS_UNPLACED || !fs_unit_at_start(pool, unit) ? -1
                                                                               : fs__unit_room(pool, unit, gpu_used);
    }
}

static void fs__describe_free(const fs_pool_units *pu, const double *room, char *buf, size_t size)
{
    size_t best = FS_UNPLACED, n_free = 0;
    for (size_t u = 0; u < pu->n_units; u++) {
        if (room[u] < 0)
            continue;
        n_free++;
        if (best == FS_UNPLACED || room[u] > room[best])
            best = u;
    }
    if (pu->n_units == 0)
        snprintf(buf, size, "the pool starts with no GPUs");
    else if (best == FS_UNPLACED)
        snprintf(buf, size, "all %zu units are taken", pu->n_units);
    else
        snprintf(buf, size, "%zu of %zu units free, the roomiest %s with %.4g GiB", n_free,
                 pu->n_units, pu->units[best].kind, room[best]);
}

static int fs__place_pool(const fs_scenario *s, size_t p, fs_placement *pl, fs_error *err)
{
    const fs_pool_spec *pool = &s->pools[p];
    fs_pool_units *pu = &pl->pools[p];
    size_t n_refs = 0;
    fs__replica_ref *refs = fs__replica_refs(s, p, &n_refs);
    double *room = malloc((pu->n_units ? pu->n_units : 1) * sizeof *room);
    double *gpu_used = calloc(pool->gpus ? pool->gpus : 1, sizeof *gpu_used);
    fs__groups groups = {0};
    int rc = FS_OK;
    if (!refs || !room || !gpu_used || fs__groups_init(pool, pu, &groups) != 0) {
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory placing pool \"%s\"", pool->name);
        goto out;
    }
    qsort(refs, n_refs, sizeof *refs, fs__by_need);

    fs_placement_policy choose = policies[pool->placement];
    for (size_t k = 0; k < n_refs; k++) {
        size_t i = choose(groups.cand, groups.room, groups.n_cand, refs[k].need_gb);
        if (i == FS_UNPLACED) {
            fs__room(pool, pu, gpu_used, room);
            char free_desc[160];
            fs__describe_free(pu, room, free_desc, sizeof free_desc);
            char need[64] = "(no memory_gb given) needs a unit";
            if (refs[k].need_gb > 0)
                snprintf(need, sizeof need, "needs %.4g GiB", refs[k].need_gb);
            rc = fs__replica_refused(s, &refs[k], need, free_desc, err);
            goto out;
        }
        size_t u = groups.head[i];
        pu->units[u].service = refs[k].service;
        pu->units[u].replica = refs[k].replica;
        gpu_used[pu->units[u].gpu] += refs[k].need_gb;
        fs__groups_take(pool, pu, gpu_used, &groups, i);
        pu->used_memory_gb += refs[k].need_gb;
        pl->replica_unit[refs[k].service][refs[k].replica] = u;
    }

    /* Fragmentation: what is provisioned but no replica of this pool's
     * services can use.  A replica with no declared footprint is taken to
     * use its whole unit (nothing stranded can be claimed for it). */
    /* A pool no service is placed on (batch, spot) has no replica a free
     * unit could be too small for: nothing there counts as stranded by size. */
    double min_need = n_refs ? INFINITY : 0;
    for (size_t i = 0; i < s->n_services; i++)
        if ((s->services[i].pool == p || (s->services[i].decode_replicas && s->services[i].decode_pool == p)) &&
            s->services[i].memory_gb < min_need)
            min_need = s->services[i].memory_gb;
    const fs_gpu_type *gpu = &s->gpu_types[pool->gpu_type];
    fs__room(pool, pu, gpu_used, room);
    if (pool->partitioning == FS_PARTITION_TIME_SLICED) {
        /* Per GPU: memory left is stranded when no seat is left, or when it is
         * too small for any replica.  A GPU's seats are contiguous units. */
        size_t per_gpu = pool->time_slicing.tenants;
        for (uint32_t g = 0; g < pool->gpus; g++) {
            size_t free_seats = 0;
            for (size_t u = (size_t)g * per_gpu; u < (size_t)(g + 1) * per_gpu && u < pu->n_units; u++)
                free_seats += room[u] >= 0;
            double left = gpu->memory_gb - gpu_used[g];
            if (free_seats == 0 || left < min_need)
                pu->stranded_memory_gb += left;
        }
    } else {
        for (size_t u = 0; u < pu->n_units; u++) {
            const fs_unit *unit = &pu->units[u];
            if (unit->service != FS_UNPLACED) {
                double need = s->services[unit->service].memory_gb;
                if (need > 0)
                    pu->stranded_memory_gb += unit->memory_gb - need;
            } else if (unit->memory_gb < min_need && fs_unit_at_start(pool, unit)) {
                pu->stranded_memory_gb += unit->memory_gb;
                pu->stranded_sm_share += unit->compute_share;
            }
        }
        if (pool->partitioning == FS_PARTITION_MIG) {
            /* Slices the layout leaves unused on every GPU. */
            unsigned mem_slices = 0;
            for (size_t i = 0; i < pool->mig.n; i++)
                mem_slices += pool->mig.profiles[i]->memory_slices;
            pu->stranded_sm_share +=
                pool->gpus * (double)fs_mig_unused_compute(&pool->mig) / FS_MIG_COMPUTE_SLICES;
            pu->stranded_memory_gb += pool->gpus * gpu->memory_gb *
                                      (double)(FS_MIG_MEMORY_SLICES - mem_slices) / FS_MIG_MEMORY_SLICES;
        }
    }
    for (size_t u = 0; u < pu->n_units; u++)
        pu->free_units += pu->units[u].service == FS_UNPLACED && fs_unit_at_start(pool, &pu->units[u]);
out:
    fs__groups_fini(&groups);
    free(refs);
    free(room);
    free(gpu_used);
    return rc;
}

int fs_placement_compute(const fs_scenario *s, fs_placement **out, fs_error *err)
{
    fs_placement *pl = calloc(1, sizeof *pl);
    if (!pl)
        return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for the placement");
    pl->scenario = s;
    pl->pools = calloc(s->n_pools ? s->n_pools : 1, sizeof *pl->pools);
    pl->replica_unit = calloc(s->n_services ? s->n_services : 1, sizeof *pl->replica_unit);
    int rc = FS_OK;
    if (!pl->pools || !pl->replica_unit)
        goto nomem;
    for (size_t i = 0; i < s->n_services; i++) {
        /* An autoscaled service may start with no replica: still one slot. */
        uint32_t placed = fs_service_placed(&s->services[i]);
        pl->replica_unit[i] = malloc((placed ? placed : 1) * sizeof **pl->replica_unit);
        if (!pl->replica_unit[i])
            goto nomem;
    }
    for (size_t p = 0; p < s->n_pools; p++) {
        if (fs__make_units(s, &s->pools[p], &pl->pools[p]) != 0)
            goto nomem;
        rc = s->pools[p].partitioning == FS_PARTITION_FRACTIONAL ? fs__place_fractional(s, p, pl, err)
                                                                 : fs__place_pool(s, p, pl, err);
        if (rc != FS_OK) {
            fs_placement_destroy(pl);
            return rc;
        }
    }
    *out = pl;
    return FS_OK;
nomem:
    fs_placement_destroy(pl);
    return fs_error_set(err, FS_ERR_RUNTIME, "out of memory for the placement");
}

void fs_placement_destroy(fs_placement *pl)
{
    if (!pl)
        return;
    for (size_t p = 0; pl->pools && p < pl->scenario->n_pools; p++)
        free(pl->pools[p].units);
    for (size_t i = 0; pl->replica_unit && i < pl->scenario->n_services; i++)
        free(pl->replica_unit[i]);
    free(pl->pools);
    free(pl->replica_unit);
    free(pl);
}

const fs_unit *fs_placement_unit(const fs_placement *pl, size_t service, uint32_t replica)
{
    const fs_service_spec *svc = &pl->scenario->services[service];
    return &pl->pools[fs_service_replica_pool(svc, replica)].units[pl->replica_unit[service][replica]];
}

double fs_placement_scale(const fs_placement *pl, size_t service, uint32_t replica)
{
    return fs_placement_unit_scale(pl, service, fs_placement_unit(pl, service, replica));
}

double fs_placement_unit_scale(const fs_placement *pl, size_t service, const fs_unit *unit)
{
    const fs_service_spec *svc = &pl->scenario->services[service];
    double reference_sms = pl->scenario->gpu_types[svc->reference_gpu].sms;
    double scale = unit->sms == reference_sms || svc->sm_exponent == 0
                       ? 1.0
                       : pow(reference_sms / unit->sms, svc->sm_exponent);
    /* An MPS client runs capped at its share, alone or not; a virtual GPU's
     * share is soft, and the pool says what it gets at each start. */
    if (svc->gpu_share > 0 && pl->scenario->pools[svc->pool].fractional.mode == FS_SHARE_MPS)
        scale *= fs_mps_slowdown(svc->share_kind, svc->gpu_share);
    return scale;
}

/*
 * placement_frac — a fractional pool's replicas onto its GPUs.
 *
 * A fractional GPU holds up to `seats` replicas.  A replica fits a GPU while
 * the GPU has a free seat, its memory quota fits beside the quotas already
 * there (memory is enforced), and its compute share plus the shares already
 * there add up to at most the pool's oversubscription (compute is soft:
 * shares beyond the GPU contend, pool.h).  Replicas go largest first by
 * their dominant share, the larger of share / oversubscription and memory /
 * GPU memory (how vector bin packing orders items), then by memory, then in
 * service and replica order.  The GPU is the pool's policy's:
 *
 * - best_fit: the GPU with the least compute left after it, then the least
 *   memory left, then the lowest index;
 * - first_fit: the lowest index that fits;
 * - fgd: the GPU whose fragmentation grows least, measured against the
 *   pool's own replica sizes (below), ties as best fit.
 *
 * Fragmentation (fgd), after Weng et al., "Beware of Fragmentation:
 * Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent",
 * USENIX ATC '23: a GPU's compute left is a fragment for a replica size that
 * cannot use it (too little compute, memory or seats left for that size);
 * the GPU's fragmentation is the expected fragment over the pool's sizes,
 * each service's (share, memory) weighted by the most replicas it may run.
 * FGD places each replica where that expectation grows least, which keeps
 * holes only for sizes that will come.
 *
 * Empty GPUs are alike, so of them only the lowest can be chosen, and they
 * are opened in index order: each replica looks at the open GPUs and the
 * next empty one, O(replicas x open GPUs) (x sizes for fgd).
 */
#include "placement_frac.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* What is placed on one GPU. */
typedef struct fs__gpu_load {
    double share;      /* compute shares, together */
    double memory_gb;  /* memory quotas, together */
    uint32_t seats;    /* replicas */
} fs__gpu_load;

/* One replica size of the pool: a service's share and quota, and its weight. */
typedef struct fs__size {
    double share, memory_gb, weight;
} fs__size;

typedef struct fs__frac {
    const fs_pool_spec *pool;
    double gpu_memory_gb;
    fs__gpu_load *load;  /* per starting GPU */
    size_t n_gpus, n_open; /* GPUs 0 .. n_open - 1 hold a replica */
    fs__size *sizes;
    size_t n_sizes;
} fs__frac;

static bool fs__fits(const fs__frac *f, const fs__gpu_load *g, double share, double memory_gb)
{
    return g->seats < f->pool->fractional.seats &&
           fs_placement_share_fits(g->share, share, f->pool->fractional.oversubscription) &&
           f->gpu_memory_gb - g->memory_gb >= memory_gb;
}

/* The expected compute a GPU with this load has left that a replica of the
 * pool's sizes could not use (Weng et al.'s fragmentation measure). */
static double fs__fragmentation(const fs__frac *f, const fs__gpu_load *g)
{
    double left = f->pool->fractional.oversubscription - g->share, frag = 0;
    if (!(left > 0))
        return 0;
    for (size_t j = 0; j < f->n_sizes; j++)
        if (!fs__fits(f, g, f->sizes[j].share, f->sizes[j].memory_gb))
            frag += f->sizes[j].weight * left;
    return frag;
}

/* The GPU the pool's policy picks for a replica of (share, memory_gb), or
 * SIZE_MAX when none fits. */
static size_t fs__choose(const fs__frac *f, double share, double memory_gb)
{
    int policy = f->pool->placement;
    size_t best = SIZE_MAX, last = f->n_open < f->n_gpus ? f->n_open + 1 : f->n_gpus;
    double best_key[3] = {0, 0, 0};
    for (size_t g = 0; g < last; g++) {
        const fs__gpu_load *load = &f->load[g];
        if (!fs__fits(f, load, share, memory_gb))
            continue;
        if (policy == FS_PLACEMENT_FIRST_FIT)
            return g;
        fs__gpu_load after = {load->share + share, load->memory_gb + memory_gb, load->seats + 1};
        double key[3] = {0, f->pool->fractional.oversubscription - after.share,
                         f->gpu_memory_gb - after.memory_gb};
        if (policy == FS_PLACEMENT_FGD)
            key[0] = fs__fragmentation(f, &after) - fs__fragmentation(f, load);
        bool better = best == SIZE_MAX;
        for (size_t k = 0; k < 3 && !better; k++) {
            if (key[k] != best_key[k]) {
                better = key[k] < best_key[k];
                break;
            }
        }
        if (better) {
            best = g;
            for (size_t k = 0; k < 3; k++)
                best_key[k] = key[k];
        }
    }
    return best;
}

/* A replica with its share and dominant share, sorted largest dominant
 * share first, then largest memory, then in service and replica order. */
typedef struct fs__frac_ref {
    fs__replica_ref ref;
    double share, dominant;
} fs__frac_ref;

static int fs__by_dominant(const void *pa, const void *pb)
{
    const fs__frac_ref *a = pa, *b = pb;
    if (a->dominant != b->dominant)
        return a->dominant > b->dominant ? -1 : 1;
    if (a->ref.need_gb != b->ref.need_gb)
        return a->ref.need_gb > b->ref.need_gb ? -1 : 1;
    return fs__replica_ref_order(&a->ref, &b->ref);
}

/* The pool's replica sizes: one per service placed on it, weighted by the
 * most replicas it may run (its autoscaler's max), the weights adding to 1.
 * 0, or -1 when out of memory. */
static int fs__sizes_init(const fs_scenario *s, size_t p, fs__frac *f)
{
    f->sizes = malloc((s->n_services ? s->n_services : 1) * sizeof *f->sizes);
    if (!f->sizes)
        return -1;
    double total = 0;
    for (size_t i = 0; i < s->n_services; i++) {
        const fs_service_spec *svc = &s->services[i];
        if (svc->pool != p || svc->gpu_share <= 0)
            continue;
        double w = svc->max_replicas > svc->replicas ? svc->max_replicas : svc->replicas;
        f->sizes[f->n_sizes++] = (fs__size){svc->gpu_share, svc->memory_gb, w};
        total += w;
    }
    for (size_t j = 0; j < f->n_sizes; j++)
        f->sizes[j].weight = total > 0 ? f->sizes[j].weight / total : 0;
    return 0;
}

/* What the roomiest GPU (most compute left, then memory) still offers. */
static void fs__describe(const fs__frac *f, char *buf, size_t size)
{
    size_t best = SIZE_MAX;
    for (size_t g = 0; g < f->n_gpus; g++) {
        const fs__gpu_load *l = &f->load[g];
        if (l->seats == f->pool->fractional.seats)
            continue;
        if (best == SIZE_MAX || l->share < f->load[best].share ||
            (l->share == f->load[best].share && l->memory_gb < f->load[best].memory_gb))
            best = g;
        if (g >= f->n_open)
            break; /* the empty GPUs after it are alike */
    }
    if (f->n_gpus == 0)
        snprintf(buf, size, "the pool starts with no GPUs");
    else if (best == SIZE_MAX)
        snprintf(buf, size, "all %zu seats are taken", f->n_gpus * f->pool->fractional.seats);
    else
        snprintf(buf, size, "the roomiest of its %zu GPUs has %.4g of its compute, %.4g GiB and %u seats left",
                 f->n_gpus, f->pool->fractional.oversubscription - f->load[best].share,
                 f->gpu_memory_gb - f->load[best].memory_gb, f->pool->fractional.seats - f->load[best].seats);
}

int fs__place_fractional(const fs_scenario *s, size_t p, fs_placement *pl, fs_error *err)
{
    const fs_pool_spec *pool = &s->pools[p];
    fs_pool_units *pu = &pl->pools[p];
    double over = pool->fractional.oversubscription;
    fs__frac f = {.pool = pool, .gpu_memory_gb = s->gpu_types[pool->gpu_type].memory_gb, .n_gpus = pool->gpus};
    size_t n_refs = 0;
    fs__replica_ref *plain = fs__replica_refs(s, p, &n_refs);
    fs__frac_ref *refs = malloc((n_refs ? n_refs : 1) * sizeof *refs);
    f.load = calloc(f.n_gpus ? f.n_gpus : 1, sizeof *f.load);
    int rc = FS_OK;
    if (!plain || !refs || !f.load || fs__sizes_init(s, p, &f) != 0) {
        rc = fs_error_set(err, FS_ERR_RUNTIME, "out of memory placing pool \"%s\"", pool->name);
        goto out;
    }
    for (size_t k = 0; k < n_refs; k++) {
        double share = s->services[plain[k].service].gpu_share;
        refs[k] = (fs__frac_ref){plain[k], share, fmax(share / over, plain[k].need_gb / f.gpu_memory_gb)};
    }
    qsort(refs, n_refs, sizeof *refs, fs__by_dominant);

    for (size_t k = 0; k < n_refs; k++) {
        const fs__frac_ref *ref = &refs[k];
        size_t g = fs__choose(&f, ref->share, ref->ref.need_gb);
        if (g == SIZE_MAX) {
            char need[96], free_desc[160];
            snprintf(need, sizeof need, "needs %.4g of a GPU's compute and %.4g GiB", ref->share, ref->ref.need_gb);
            fs__describe(&f, free_desc, sizeof free_desc);
            rc = fs__replica_refused(s, &ref->ref, need, free_desc, err);
            goto out;
        }
        fs__gpu_load *load = &f.load[g];
        size_t u = (size_t)g * pool->fractional.seats + load->seats;
        fs_unit *unit = &pu->units[u];
        unit->service = ref->ref.service;
        unit->replica = ref->ref.replica;
        unit->compute_share = ref->share;
        /* Charged the larger of its compute (of what the GPU may hand out)
         * and its memory: either one keeps that much of the GPU from others. */
        unit->charge_share = fmax(ref->share / over, ref->ref.need_gb / f.gpu_memory_gb);
        load->share += ref->share;
        load->memory_gb += ref->ref.need_gb;
        load->seats++;
        if (g == f.n_open)
            f.n_open++;
        pu->used_memory_gb += ref->ref.need_gb;
        pl->replica_unit[ref->ref.service][ref->ref.replica] = u;
    }

    /* Stranded: what is left on a GPU that no replica size of the pool
     * could use (no seat, too little compute or memory for every size):
     * its memory left and its SMs left (1 - shares, when under 1).  A pool
     * with no service has no size, so nothing is stranded by size. */
    for (size_t g = 0; g < f.n_gpus && f.n_sizes > 0; g++) {
        bool usable = false;
        for (size_t j = 0; j < f.n_sizes && !usable; j++)
            usable = fs__fits(&f, &f.load[g], f.sizes[j].share, f.sizes[j].memory_gb);
        if (usable)
            continue;
        pu->stranded_memory_gb += f.gpu_memory_gb - f.load[g].memory_gb;
        pu->stranded_sm_share += fmax(0, 1 - f.load[g].share);
    }
    for (size_t u = 0; u < pu->n_units; u++)
        pu->free_units += pu->units[u].service == FS_UNPLACED;
out:
    free(plain);
    free(refs);
    free(f.load);
    free(f.sizes);
    return rc;
}

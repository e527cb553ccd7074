/*
 * results_region — a policy's figures per region (fs_results_region_summary)
 * and a service's spilled requests (fs_results_spill_summary): sums over
 * the region's pools and services, one replication at a time, then the mean
 * and CI across replications like every other figure.  What outputs show
 * only for a scenario of more than one region (or with "spill"), so the
 * documents of the others stay as they were.
 */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool fs_results_regions_shown(const fs_scenario *s) { return s->n_regions > 1; }

bool fs_results_spill_any(const fs_scenario *s)
{
    for (size_t i = 0; i < s->n_services; i++)
        if (s->services[i].spills)
            return true;
    return false;
}

enum {
    R_GPU_H = FS_RFIG_GPU_H, R_BUSY_H = FS_RFIG_BUSY_H, R_UTIL = FS_RFIG_UTIL, R_COST = FS_RFIG_COST,
    R_ENERGY = FS_RFIG_ENERGY, R_REQUESTS = FS_RFIG_REQUESTS, R_COMPLETED = FS_RFIG_COMPLETED,
    R_DROPPED = FS_RFIG_DROPPED, R_OUT = FS_RFIG_SPILLED_OUT, R_IN = FS_RFIG_SPILLED_IN, R_COUNT = FS_RFIG_COUNT
};

void fs_results_region_figures(const fs_results *r, size_t policy, uint32_t k, size_t g, double fig[FS_RFIG_COUNT])
{
    const fs_scenario *s = r->policies[policy].scenario;
    const fs_rep_result *rep = &r->policies[policy].reps[k];
    for (size_t f = 0; f < R_COUNT; f++)
        fig[f] = 0;
    double pool[FS_FIG_COUNT];
    for (size_t p = 0; p < s->n_pools; p++) {
        if (s->pools[p].region != g)
            continue;
        fs_results_pool_figures(r, policy, k, p, pool);
        fig[R_GPU_H] += pool[FS_FIG_GPU_H];
        fig[R_BUSY_H] += pool[FS_FIG_BUSY_H];
        fig[R_COST] += pool[FS_FIG_COST];
        fig[R_ENERGY] += pool[FS_FIG_ENERGY];
    }
    /* No GPU-hour provisioned: utilization is no data, not 0%. */
    fig[R_UTIL] = fig[R_GPU_H] > 0 ? fig[R_BUSY_H] / fig[R_GPU_H] : NAN;
    for (size_t i = 0; i < s->n_services; i++) {
        if (s->services[i].region != g)
            continue;
        const fs_service_rep *sr = fs_rep_service(rep, i);
        fig[R_REQUESTS] += (double)sr->requests;
        fig[R_COMPLETED] += (double)sr->completed;
        fig[R_DROPPED] += (double)sr->dropped;
        fig[R_OUT] += (double)sr->spill_out;
        fig[R_IN] += (double)sr->spill_in;
    }
}

int fs_results_region_summary(const fs_results *r, size_t policy, size_t region, fs_region_summary *out)
{
    uint32_t n = r->policies[policy].n_reps;
    double *x = malloc((size_t)R_COUNT * (n ? n : 1) * sizeof *x);
    if (!x)
        return ENOMEM;
    for (uint32_t k = 0; k < n; k++)
        fs_results_region_figures(r, policy, k, region, x + (size_t)k * R_COUNT);
    fs_summary *dst[R_COUNT] = {&out->gpu_hours, &out->busy_gpu_hours, &out->utilization, &out->cost_usd,
                                &out->energy_kwh, &out->requests,       &out->completed,   &out->dropped,
                                &out->spilled_out, &out->spilled_in};
    for (size_t f = 0; f < R_COUNT; f++)
        *dst[f] = fs_results_summary_known(x + f, R_COUNT, n);
    free(x);
    return 0;
}

int fs_results_spill_summary(const fs_results *r, size_t policy, size_t service, fs_summary *spilled_out,
                             fs_summary *spilled_in)
{
    const fs_policy_result *pol = &r->policies[policy];
    double *x = malloc(2 * (size_t)(pol->n_reps ? pol->n_reps : 1) * sizeof *x);
    if (!x)
        return ENOMEM;
    for (uint32_t k = 0; k < pol->n_reps; k++) {
        const fs_service_rep *sr = fs_rep_service(&pol->reps[k], service);
        x[2 * k] = (double)sr->spill_out;
        x[2 * k + 1] = (double)sr->spill_in;
    }
    *spilled_out = fs_results_summary_known(x, 2, pol->n_reps);
    *spilled_in = fs_results_summary_known(x + 1, 2, pol->n_reps);
    free(x);
    return 0;
}
